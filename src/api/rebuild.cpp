// rebuild_artifact (api/rebuild.hpp).
#include "api/rebuild.hpp"

#include "attune/codegen_cpu_tensorize.hpp"
#include "attune/error.hpp"

namespace attune {

Artifact rebuild_artifact(const Op& op, const Target& target, const Record& r) {
  // The options tune() lowers candidates with (src/search/tune.cpp), so the kernel is the one
  // that was measured.
  CpuCodegenOptions co;
  co.vector_bits = cpu_vector_bits(target);
  if (!target.compiler_flags.empty()) co.flags = target.compiler_flags;
  co.trace_json = r.trace;
  try {
    return lower_cpu_recorded(op, target, r.trace, co);
  } catch (const Error& e) {
    throw Error("record " + std::to_string(r.id) + " no longer replays: " + e.what());
  }
}

}  // namespace attune
