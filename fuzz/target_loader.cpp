// Fuzz target target_loader: a target file's JSON (hw's parse_target, with its intrinsics,
// emit rules and accelerator config references) is a validated Target or an attune::Error.
// Target files are trusted as code (their compiler flags reach cc), but they are still read
// within limits: a typo must never crash attune. The origin sits in the source tree's
// targets/ so that relative config references ("vta/default.json") resolve as they do there.
#include <string>

#include "fuzz.hpp"
#include "hw/target.hpp"
#include "ir/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attune;
  try {
    const Target t = parse_target(fuzz::as_text(data, size), ATTUNE_SOURCE_DIR "/targets/fuzzed.json");
    if (t.kind == TargetKind::cpu) (void)cpu_vector_registers(t);
    (void)host_cannot_run(t);
  } catch (const Error&) {
  }
  return 0;
}
