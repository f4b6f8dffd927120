// schedule/schedule.hpp — a schedule, whatever it is for, and its one JSON codec.
//
// A schedule is what the search picks, the database stores (its text is the resume key) and
// lower() (codegen.hpp) turns into an artifact. It holds one of three things:
//   - loop-nest steps (a Trace of Transforms), replayed on initial_nest(op);
//   - optionally ending them, a tensorize step: the rest of the kernel is the intrinsic's, like
//     TVM's tensorize ending a block's schedule (tensorize.hpp says why it is no Transform);
//   - or an accelerator template's knobs (VTA), read by name from a list each accelerator
//     declares (accelerator_knobs), never by position.
//
// The text (schedule_to_string; compact, keys sorted) of every schedule attune has written is
// kept byte for byte, because the database keys records by its hash and the CPU backend prints
// it into the C whose hash the record keeps:
//   {"schema_version":1,"steps":[{"factors":[4,8],"kind":"split","loop":"n"},...]}
//   {"schema_version":1,"steps":[{"intrinsic":"avx2_fma_f32","kind":"tensorize","loops":{...},
//                                 "mapping":1,"schedule":{"cols":3,"parallel":false,"rows":3},
//                                 "schema_version":1}]}
//   {"knobs":{"h_nthread":2,"oc_nthread":1,...},"schema_version":1,"target":"vta"}
// Reading refuses anything else with one line naming the field; keys attune does not read are
// dropped, so re-serialising what was read never carries them on.
// Tests: tests/schedule/schedule_codec_test.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "schedule/tensorize.hpp"
#include "schedule/transform.hpp"

namespace attune {

// An accelerator template's knob values, by name. A declared knob the values leave out is at
// its default (a GEMM has no tile_h); a name the accelerator does not declare is refused.
struct AcceleratorKnobs {
  std::string target;                          // whose declared list the names come from: "vta"
  std::map<std::string, std::int64_t> values;  // what the record names (kept as written)
  // The value of declared knob `name` (its default when left out); InternalError for a name
  // the target does not declare.
  std::int64_t at(std::string_view name) const;
  bool operator==(const AcceleratorKnobs&) const = default;
};

struct AcceleratorKnob {
  std::string_view name;
  std::int64_t default_value = 1;
};
// The knobs accelerator `target` declares (VTA: AutoTVM's template, codegen_vta.hpp); empty for
// a target that has none.
const std::vector<AcceleratorKnob>& accelerator_knobs(std::string_view target);

struct Schedule {
  Schedule() = default;
  explicit Schedule(Trace steps) : nest(std::move(steps)) {}  // loop-nest steps alone

  Trace nest;                              // loop-nest steps
  std::optional<TensorizeStep> tensorize;  // ends the schedule
  std::optional<AcceleratorKnobs> knobs;   // an accelerator's: then nothing else is set
  bool operator==(const Schedule&) const = default;
};

inline constexpr int kScheduleSchemaVersion = 1;

// `what` names the text in errors: "trace", "--trace", "record 12's trace".
nlohmann::json to_json(const Schedule& s);
Schedule schedule_from_json(const nlohmann::json& j, const std::string& what = "schedule");
std::string schedule_to_string(const Schedule& s);  // compact, keys sorted: the database key
// Parsed within parse_json_limited's bounds (json_limits.hpp).
Schedule schedule_from_string(std::string_view text, const std::string& what = "schedule");

// The tensorize step alone, as it sits in "steps" (the generated code's header shows it).
nlohmann::json to_json(const TensorizeStep& s);

// Schedules of loop-nest steps only, the RL agent's and the tests' unit.
std::string trace_to_string(const Trace& t);  // schedule_to_string(Schedule{t})
// Throws Error for text that is no loop-nest trace (a tensorize step, knobs).
Trace trace_from_string(std::string_view text);

}  // namespace attune
