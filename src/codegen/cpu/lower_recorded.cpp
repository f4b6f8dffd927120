// lower_cpu_recorded (attune/codegen_cpu_tensorize.hpp): one entry point from a record's trace
// text to C, whichever of the two CPU code generators the trace is for.
#include <nlohmann/json.hpp>

#include "attune/codegen_cpu_tensorize.hpp"
#include "attune/error.hpp"
#include "attune/json_limits.hpp"

namespace attune {

Artifact lower_cpu_recorded(const Op& op, const Target& target, const std::string& trace_text,
                            const CpuCodegenOptions& options) {
  const nlohmann::json j = parse_json_limited(trace_text, "trace");
  // Compared as JSON values: a "kind" of another type is simply not "tensorize".
  if (j.is_object() && j.contains("steps") && j["steps"].is_array() && j["steps"].size() == 1 &&
      j["steps"][0].is_object() && j["steps"][0].contains("kind") && j["steps"][0]["kind"] == "tensorize")
    return lower_cpu_tensorized(tensorize_from_json(op, target, j["steps"][0]), options.flags);
  const Trace trace = trace_from_json(j);
  // The header comment shows the trace re-serialised from what was parsed, never the record's
  // own text: keys attune does not read (and whatever they hold) are not carried into C.
  CpuCodegenOptions o = options;
  o.trace_json = trace_to_string(trace);
  return lower_cpu(replay(op, trace), o);
}

}  // namespace attune
