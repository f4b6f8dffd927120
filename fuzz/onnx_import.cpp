// Fuzz target onnx_import: any bytes given as an ONNX model are either planned into tasks whose
// specs parse (graph's import_onnx_bytes: protobuf, checks, shape inference, folding, layouts,
// partition, lowering) or refused with attune::Error. Models are outside input: a shared
// model zoo, a download; nothing in one may crash attune or reach generated code unchecked.
#include <string>

#include "fuzz.hpp"
#include "graph/import.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attune;
  try {
    const graph::ModelPlan plan = graph::import_onnx_bytes(std::string(reinterpret_cast<const char*>(data), size), "fuzzed.onnx");
    for (const auto& t : plan.tasks)
      if (canonical_spec(parse_spec(t.spec)).empty()) fuzz::finding("a task's spec printed empty", t.spec);
  } catch (const Error&) {
  }
  return 0;
}
