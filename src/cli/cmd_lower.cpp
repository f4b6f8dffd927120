// cmd_lower.cpp — `attune lower SPEC [--trace T] [--target T]`: the scheduled loop nest and the
// C the CPU backend makes of it, so a person can read what a trace does.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "attune/codegen_cpu.hpp"
#include "attune/loopnest.hpp"
#include "attune/op.hpp"
#include "attune/target.hpp"
#include "attune/transform.hpp"
#include "cli/cli_common.hpp"

namespace attune::cli {

namespace {

struct LowerArgs {
  std::string spec;
  std::string trace;   // a file or inline JSON; empty: the untransformed nest
  std::string target;  // empty: the code generator's defaults
  bool nest_only = false;
  bool c_only = false;
  std::string intrinsic;  // tensorize onto this intrinsic (cmd_lower_tensorize.cpp)
  int mapping = 0;        // ... with this mapping (as `attune map` numbers them); 0: the default
};

int run_lower(const LowerArgs& a) {
  if (wants_tensorize(a.target, a.intrinsic, a.mapping))
    return run_lower_tensorized(a.spec, a.target, a.intrinsic, a.mapping, a.c_only);
  const Op op = op_from_cli(a.spec);
  CpuCodegenOptions opts = a.target.empty() ? CpuCodegenOptions{} : cpu_codegen_options(load_target_arg(a.target));
  LoopNest nest = initial_nest(op);
  if (!a.trace.empty()) {
    const Trace trace = trace_from_arg(a.trace);
    nest = replay(op, trace);
    opts.trace_json = trace_to_string(trace);
  }
  // Lower before printing anything, so a failure leaves no half-written output.
  const Artifact art = a.nest_only ? Artifact{} : lower_cpu(nest, opts);
  if (!a.c_only) {
    if (!a.nest_only) std::cout << "// ---- loop nest ----\n";
    const std::string text = nest.str();
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
  sub->add_option("--trace", args->trace, "trace to replay: a JSON file or inline JSON");
  sub->add_option("--target", args->target,
                 "cpu target whose vector width and flags to use (e.g. cpu, x86-avx512); a cuda target prints "
                 "the tensorized CUDA source");
  sub->add_option("--intrinsic", args->intrinsic, "tensorize onto this intrinsic of --target (see `attune map`)");
  sub->add_option("--mapping", args->mapping, "with mapping number K of `attune map` (default: the widest valid one)");
  auto* nest = sub->add_flag("--nest-only", args->nest_only, "print only the loop nest");
  sub->add_flag("--c-only", args->c_only, "print only the generated C")->excludes(nest);
  sub->callback([&action, args] { action = [args] { return run_lower(*args); }; });
}

}  // namespace attune::cli
