// cmd_space_stats.cpp — `attune space-stats SPEC --target vta`: how much of the VTA knob space
// is invalid, by failure kind (compile errors found by the code generator, runtime errors
// raised by the simulator), the quantity ML²Tuner's validity model exists to avoid measuring.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/cli_common.hpp"
#include "codegen/codegen_vta.hpp"
#include "ir/error.hpp"

namespace attune::cli {

namespace {

struct SpaceStatsArgs {
  std::string spec, target = "vta";
  int max_configs = 5000;
  bool json = false;
};

int run_space_stats(const SpaceStatsArgs& a) {
  if (!is_vta_target_arg(a.target))
    throw Error("space-stats needs a VTA target (vta or vta:CONFIG), got '" + a.target + "'");
  if (a.max_configs < 1) throw Error("--max-configs must be positive, got " + std::to_string(a.max_configs));
  const Op op = op_from_cli(a.spec);
  const SpaceStats s = vta_space_stats(op, vta_config_for(a.target), a.max_configs);
  if (a.json)
    std::cout << s.to_json().dump() << std::endl;
  else
    std::cout << s.str();
  return 0;
}

}  // namespace

void add_space_stats_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<SpaceStatsArgs>();
  auto* sub = app.add_subcommand("space-stats", "Share of invalid configurations in a VTA knob space, by failure kind");
  sub->add_option("spec", args->spec, "the op (workload line or name, template call, raw spec, file)")->required();
  sub->add_option("--target", args->target, "vta or vta:CONFIG")->capture_default_str();
  sub->add_option("--max-configs", args->max_configs, "sample this many configs when the space is larger")
      ->capture_default_str();
  sub->add_flag("--json", args->json, "one JSON object");
  sub->callback([&action, args] { action = [args] { return run_space_stats(*args); }; });
}

}  // namespace attune::cli
