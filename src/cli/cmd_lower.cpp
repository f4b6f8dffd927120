// cmd_lower.cpp — `attune lower SPEC [--trace T] [--target T]`: the scheduled loop nest and the
// C the CPU backend makes of it (lower(), codegen.hpp: the C `attune tune` measures for that
// schedule and target), so a person can read what a trace does.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/cli_common.hpp"
#include "codegen/codegen.hpp"
#include "hw/target.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "schedule/loopnest.hpp"
#include "schedule/schedule.hpp"

namespace attune::cli {

namespace {

struct LowerArgs {
  std::string spec;
  std::string trace;   // a file or inline JSON; empty: the untransformed nest
  std::string target;  // empty: cpu (this machine's, as tune() measures)
  bool nest_only = false;
  bool c_only = false;
  std::string intrinsic;  // tensorize onto this intrinsic (cmd_lower_tensorize.cpp)
  int mapping = 0;        // ... with this mapping (as `attune map` numbers them); 0: the default
};

int run_lower(const LowerArgs& a) {
  if (wants_tensorize(a.target, a.intrinsic, a.mapping))
    return run_lower_tensorized(a.spec, a.target, a.intrinsic, a.mapping, a.c_only);
  const Op op = op_from_cli(a.spec);
  const Target target = load_target_arg(a.target.empty() ? "cpu" : a.target);
  if (target.kind == TargetKind::vta)
    throw Error("target " + target.name + ": VTA schedules compile to accelerator programs, not source to print");
  const Schedule schedule = a.trace.empty() ? Schedule{} : schedule_from_arg(a.trace);
  // Lower before printing anything, so a failure leaves no half-written output.
  const Artifact art = a.nest_only ? Artifact{} : lower(schedule, op, target).artifact;
  if (!a.c_only) {
    if (!a.nest_only) std::cout << "// ---- loop nest ----\n";
    const std::string text =
        schedule.tensorize ? tensorize_plan(op, target, *schedule.tensorize).str() : replay(op, schedule.nest).str();
    std::cout << text << (text.ends_with('\n') ? "" : "\n");
  }
  if (a.nest_only) return 0;
  if (!a.c_only) {
    std::string flags;
    for (const auto& f : art.flags) flags += " " + f;
    std::cout << "\n// ---- generated C (flags:" << flags << ") ----\n";
  }
  std::cout << art.source;
  return 0;
}

}  // namespace

void add_lower_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<LowerArgs>();
  auto* sub = app.add_subcommand("lower", "Print the loop nest of SPEC (after --trace) and its generated C");
  sub->add_option("SPEC", args->spec, "op: template call, workload line/name, raw spec or spec file")->required();
  sub->add_option("--trace", args->trace,
                  "schedule to lower (a record's trace: loop-nest steps or a tensorize step): a JSON file or "
                  "inline JSON");
  sub->add_option("--target", args->target,
                  "target whose code to print (default: cpu, this machine's); a cpu target sets the vector width and "
                  "flags, a cuda target prints the tensorized CUDA source (a multi-stage op: one kernel per "
                  "stage)");
  sub->add_option("--intrinsic", args->intrinsic, "tensorize onto this intrinsic of --target (see `attune map`)");
  sub->add_option("--mapping", args->mapping, "with mapping number K of `attune map` (default: the widest valid one)");
  auto* nest = sub->add_flag("--nest-only", args->nest_only, "print only the loop nest");
  sub->add_flag("--c-only", args->c_only, "print only the generated C")->excludes(nest);
  sub->callback([&action, args] { action = [args] { return run_lower(*args); }; });
}

}  // namespace attune::cli
