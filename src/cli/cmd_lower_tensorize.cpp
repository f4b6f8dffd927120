// cmd_lower_tensorize.cpp — the tensorizing half of `attune lower`: with a CUDA target, or with
// --intrinsic / --mapping, SPEC is mapped onto an intrinsic (AMOS) and the plan lowered by the
// target's backend through lower(): CUDA source for cuda targets, tensorized C for cpu targets.
// A multi-stage op (softmax, norms, pooling, attention) is not tensorized: on a cuda target it
// prints its kernels, one per stage (lower_cuda_stages, codegen_cuda.hpp).
#include <iostream>

#include "cli/cli_common.hpp"
#include "codegen/codegen.hpp"
#include "ir/error.hpp"
#include "schedule/schedule.hpp"
#include "schedule/tensorize.hpp"

namespace attune::cli {

namespace {

// The intrinsic asked for, or the target's first one that some mapping of `op` can use.
const Intrinsic& choose_intrinsic(const Op& op, const Target& t, const std::string& name) {
  if (!name.empty()) {
    if (!t.has_intrinsic(name)) {
      std::string names;
      for (const auto& in : t.intrinsics) names += (names.empty() ? "" : ", ") + in.name;
      throw Error("target " + t.name + " has no intrinsic '" + name + "' (it has: " + names + ")");
    }
    return t.intrinsic(name);
  }
  for (const auto& in : t.intrinsics) {
    if (!tensorize_supported_kind(in.emit_kind)) continue;
    try {
      plan_tensorize(op, in, 0);
      return in;
    } catch (const Error&) {
    }
  }
  throw Error("no intrinsic of target " + t.name + " has a valid mapping for this op (see `attune map`)");
}

std::string flags_of(const Artifact& art) {
  std::string flags;
  for (const auto& f : art.flags) flags += " " + f;
  return flags;
}

int run_lower_stages(const Op& op, const Target& target, const std::string& intrinsic, int mapping, bool code_only) {
  if (!intrinsic.empty() || mapping != 0)
    throw Error("--intrinsic and --mapping tensorize a contraction; a multi-stage op has no mappings");
  const Artifact art = lower(Schedule{}, op, target).artifact;
  if (!code_only) std::cout << "// ---- generated CUDA, one kernel per stage (flags:" << flags_of(art) << ") ----\n";
  std::cout << art.source;
  return 0;
}

}  // namespace

bool wants_tensorize(const std::string& target_name, const std::string& intrinsic, int mapping) {
  if (!intrinsic.empty() || mapping != 0) return true;
  return !target_name.empty() && load_target_arg(target_name).kind == TargetKind::cuda;
}

int run_lower_tensorized(const std::string& spec, const std::string& target_name, const std::string& intrinsic,
                         int mapping, bool code_only) {
  if (target_name.empty()) throw Error("--intrinsic and --mapping need --target");
  if (mapping < 0) throw Error("--mapping " + std::to_string(mapping) + ": numbers start at 1");
  const Op op = op_from_cli(spec);
  const Target target = load_target_arg(target_name);
  if (op.multi_stage()) return run_lower_stages(op, target, intrinsic, mapping, code_only);
  const Intrinsic& intr = choose_intrinsic(op, target, intrinsic);
  Schedule schedule;
  schedule.tensorize = plan_tensorize(op, intr, mapping).step();
  const Artifact art = lower(schedule, op, target).artifact;
  if (!code_only) {
    // The schedule's text, which `attune lower --trace` takes back.
    std::cout << "// ---- schedule ----\n// " << schedule_to_string(schedule) << "\n";
    std::cout << "// ---- generated " << (art.language == "cuda" ? "CUDA" : "C") << " (flags:" << flags_of(art)
              << ") ----\n";
  }
  std::cout << art.source;
  return 0;
}

}  // namespace attune::cli
