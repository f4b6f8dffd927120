// lower_cpu_recorded (attune/codegen_cpu_tensorize.hpp): one entry point from a record's trace
// text to C, whichever of the two CPU code generators the trace is for.
#include <nlohmann/json.hpp>

#include "attune/codegen_cpu_tensorize.hpp"
#include "attune/error.hpp"

namespace attune {

Artifact lower_cpu_recorded(const Op& op, const Target& target, const std::string& trace_text,
                            const CpuCodegenOptions& options) {
  const nlohmann::json j = nlohmann::json::parse(trace_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("steps") && j["steps"].is_array() && j["steps"].size() == 1 &&
      j["steps"][0].is_object() && j["steps"][0].value("kind", "") == "tensorize")
    return lower_cpu_tensorized(tensorize_from_json(op, target, j["steps"][0]), options.flags);
  CpuCodegenOptions o = options;
  o.trace_json = trace_text;
  return lower_cpu(replay(op, trace_from_string(trace_text)), o);
}

}  // namespace attune
