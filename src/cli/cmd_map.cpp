// cmd_map.cpp — `attune map SPEC --target T`: the AMOS mappings of SPEC onto each intrinsic of a
// target (or one named with --intrinsic), as tables for people or JSON for tools.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/cli_common.hpp"
#include "hw/target.hpp"
#include "ir/op.hpp"
#include "mapping/mapping.hpp"

namespace attune::cli {

namespace {

struct MapArgs {
  std::string spec;
  std::string target;
  std::string intrinsic;  // empty: every intrinsic of the target
  bool no_pad = false;
  bool valid_only = false;
  bool json = false;
};

// A report with its counts first (to_json's keys come sorted, so "items" would lead and the
// counts would trail thousands of characters later): easier to read with `head`.
nlohmann::ordered_json report_json(const MappingReport& r) {
  const nlohmann::json j = to_json(r);
  nlohmann::ordered_json o;
  for (const char* key : {"intrinsic", "one_to_one", "mappings", "reason"})
    if (j.contains(key)) o[key] = j.at(key);
  for (const auto& [key, value] : j.items())
    if (!o.contains(key)) o[key] = value;
  return o;
}

int run_map(const MapArgs& a) {
  const Op op = op_from_cli(a.spec);
  const Target target = load_target_arg(a.target);
  MappingOptions mopts;
  mopts.no_pad = a.no_pad;

  std::vector<const Intrinsic*> chosen;
  if (!a.intrinsic.empty())
    chosen.push_back(&target.intrinsic(a.intrinsic));  // throws naming the choices
  else
    for (const auto& in : target.intrinsics) chosen.push_back(&in);

  std::vector<MappingReport> reports;
  for (const auto* in : chosen) reports.push_back(enumerate_mappings(op, *in, mopts));

  if (a.json) {
    // One intrinsic asked for: its report alone; otherwise every report under the target.
    if (!a.intrinsic.empty()) {
      std::cout << report_json(reports.front()).dump() << "\n";
    } else {
      nlohmann::ordered_json all = nlohmann::ordered_json::array();
      for (const auto& r : reports) all.push_back(report_json(r));
      nlohmann::ordered_json o;
      o["target"] = target.name;
      o["intrinsics"] = std::move(all);
      std::cout << o.dump() << "\n";
    }
    return 0;
  }
  std::cout << "target " << target.name << ", op " << (op.name.empty() ? "(unnamed)" : op.name) << "\n";
  for (std::size_t i = 0; i < reports.size(); ++i)
    std::cout << "\n" << render_table(reports[i], !a.valid_only);  // opens with the intrinsic's name
  return 0;
}

}  // namespace

void add_map_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<MapArgs>();
  auto* sub = app.add_subcommand("map", "Enumerate the mappings of SPEC onto a target's intrinsics (AMOS)");
  sub->add_option("SPEC", args->spec, "op: template call, workload line/name, raw spec or spec file")->required();
  sub->add_option("--target", args->target, "target name or JSON file (e.g. cuda, nvidia-h200, cpu)")->required();
  sub->add_option("--intrinsic", args->intrinsic, "only this intrinsic");
  sub->add_flag("--no-pad", args->no_pad, "refuse mappings whose extents do not fill the intrinsic");
  sub->add_flag("--valid-only", args->valid_only, "tables list valid mappings only");
  sub->add_flag("--json", args->json, "print one JSON object instead of tables");
  sub->callback([&action, args] { action = [args] { return run_map(*args); }; });
}

}  // namespace attune::cli
