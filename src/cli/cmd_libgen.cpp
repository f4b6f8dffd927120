// cmd_libgen.cpp — `attune libgen`: the tuned kernels of a database as a standalone C library,
// or (--model) a network as one library with NAME_infer.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

#include "cli/cli_common.hpp"
#include "graph/import.hpp"
#include "libgen/libgen.hpp"
#include "network/model_library.hpp"

namespace attune::cli {

namespace {

struct LibgenArgs {
  std::string db = kDefaultDb, out, name = "attune_kernels", target = "cpu", ops, model;
  std::vector<std::string> shapes;
  bool force = false;
};

// libgen --model: the network as one library with NAME_infer (network/model_library.hpp).
int run_model_libgen(const LibgenArgs& a) {
  graph::ShapeOverrides shapes;
  for (const auto& s : a.shapes) shapes.insert(graph::parse_shape_override(s));
  const graph::ModelPlan plan = graph::import_onnx(a.model, shapes);
  network::ModelLibraryOptions o;
  o.db_path = std::filesystem::exists(a.db) ? a.db : "";
  o.out_dir = a.out;
  o.name = a.name == "attune_kernels" ? "attune_model" : a.name;
  o.target = target_arg(a.target);
  o.force = a.force;
  const auto r = network::generate_model_library(plan, o);
  std::cout << "wrote model library '" << o.name << "' to " << a.out << ": " << r.tasks << " kernels (" << r.tuned
            << " tuned, " << r.tasks - r.tuned << " default), " << plan.steps.size() << " steps, weights "
            << r.weight_bytes / 1024 << " KiB, arena " << r.arena_bytes / 1024 << " KiB, " << r.files.size() << " files\n";
  std::cout << "build it with: cmake -S " << a.out << " -B " << a.out << "/build && cmake --build " << a.out << "/build\n";
  return 0;
}

int run_libgen(const LibgenArgs& a) {
  if (!a.model.empty()) return run_model_libgen(a);
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
  sub->add_option("--model", args->model, "an ONNX model: emit it as one library with NAME_infer (default name attune_model)");
  sub->add_option("--shape", args->shapes, "with --model: fix a graph input's shape, NAME=D1,D2,...");
  sub->callback([&action, args] { action = [args] { return run_libgen(*args); }; });
}

}  // namespace attune::cli
