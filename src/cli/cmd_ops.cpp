// cmd_ops.cpp — `attune ops`: the op templates and their parameters, as a table for people.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>

#include "cli/cli_common.hpp"
#include "ir/op.hpp"

namespace attune::cli {

namespace {

std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

int run_ops() {
  const auto& templates = list_templates();
  std::size_t name_w = 0, value_w = 8, tmpl_w = 0;  // 8: "required"
  for (const auto& t : templates) {
    tmpl_w = std::max(tmpl_w, t.name.size());
    for (const auto& p : t.params) {
      name_w = std::max(name_w, p.name.size());
      value_w = std::max(value_w, p.default_value.size());
    }
  }
  for (const auto& t : templates) {
    std::cout << pad(t.name, tmpl_w) << "  " << t.summary << "\n";
    for (const auto& p : t.params)
      std::cout << "    " << pad(p.name, name_w) << "  "
                << pad(p.default_value.empty() ? "required" : p.default_value, value_w) << "  " << p.help << "\n";
  }
  std::cout << "\nUse as SPEC: 'NAME:KEY=VALUE,...', e.g. 'gemm:M=512,N=512,K=512'.\n";
  return 0;
}

}  // namespace

void add_ops_command(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("ops", "List op templates and their parameters");
  sub->callback([&action] { action = run_ops; });
}

}  // namespace attune::cli
