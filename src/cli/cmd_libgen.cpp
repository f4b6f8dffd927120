// cmd_libgen.cpp — `attune libgen`: the tuned kernels of a database as a standalone C library.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/cli_common.hpp"
#include "libgen/libgen.hpp"

namespace attune::cli {

namespace {

struct LibgenArgs {
  std::string db = kDefaultDb, out, name = "attune_kernels", target = "cpu", ops;
  bool force = false;
};

int run_libgen(const LibgenArgs& a) {
  LibgenOptions o;
  o.db_path = a.db;
  o.out_dir = a.out;
  o.name = a.name;
  o.target = target_arg(a.target);
  o.ops_file = a.ops;
  o.force = a.force;
  const LibgenResult r = generate_library(o);
  std::cout << "wrote library '" << a.name << "' to " << a.out << ": " << r.tuned_kernels << " tuned kernel"
            << (r.tuned_kernels == 1 ? "" : "s") << ", " << r.files.size() << " files\n";
  for (const auto& k : r.kernels)
    std::cout << "  " << k.symbol << "  " << (k.family.empty() ? k.entry : k.family) << "  " << k.task << "  "
              << format_time(k.time_s) << "\n";
  std::cout << "build it with: cmake -S " << a.out << " -B " << a.out << "/build && cmake --build " << a.out
            << "/build && cmake --install " << a.out << "/build --prefix PREFIX\n";
  return 0;
}

}  // namespace

void add_libgen_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<LibgenArgs>();
  auto* sub =
      app.add_subcommand("libgen", "Emit the best verified kernels of a database as a C library with a CMake package");
  sub->add_option("--db", args->db, "tuning database")->capture_default_str();
  sub->add_option("--out", args->out, "output directory")->required();
  sub->add_option("--name", args->name, "library name (a C identifier)")->capture_default_str();
  sub->add_option("--target", args->target, "target whose tasks to take")->capture_default_str();
  sub->add_option("--ops", args->ops, "workload file: only these ops");
  sub->add_flag("--force", args->force, "replace an earlier libgen output in --out (only the files it wrote)");
  sub->callback([&action, args] { action = [args] { return run_libgen(*args); }; });
}

}  // namespace attune::cli
