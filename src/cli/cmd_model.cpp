// cmd_model.cpp — `attune import` (an ONNX model's graph and the tuning tasks it becomes) and
// `attune run-model` (the network run with tuned or default kernels, .npy in and out).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

#include "cli/cli_common.hpp"
#include "graph/import.hpp"
#include "graph/npy.hpp"
#include "ir/error.hpp"
#include "network/model_runner.hpp"

namespace attune::cli {

namespace {

struct ModelArgs {
  std::string model;
  std::vector<std::string> shapes;
  bool specs = false;
  std::vector<std::string> inputs;  // run-model: NAME=FILE.npy
  std::string output_dir;
  std::string target = "cpu";
  std::string db;
  int threads = 0;
};

graph::ShapeOverrides overrides(const std::vector<std::string>& shapes) {
  graph::ShapeOverrides o;
  for (const auto& s : shapes) o.insert(graph::parse_shape_override(s));
  return o;
}

int run_import(const ModelArgs& a) {
  const graph::ModelPlan plan = graph::import_onnx(a.model, overrides(a.shapes));
  std::cout << graph::describe_plan(plan, a.specs);
  return 0;
}

// NAME=FILE.npy per graph input, in the graph's input order.
std::vector<graph::HostTensor> read_inputs(const graph::ModelPlan& plan, const std::vector<std::string>& given) {
  std::map<std::string, std::string> files;
  for (const auto& g : given) {
    const auto eq = g.find('=');
    if (eq == std::string::npos || eq == 0) throw attune::Error("--input '" + g.substr(0, 200) + "': expected NAME=FILE.npy");
    files[g.substr(0, eq)] = g.substr(eq + 1);
  }
  std::vector<graph::HostTensor> r;
  for (int v : plan.graph.inputs) {
    const std::string& name = plan.graph.values[v].name;
    auto it = files.find(name);
    if (it == files.end()) throw attune::Error("run-model: no --input for graph input '" + name.substr(0, 100) + "' (give " + name.substr(0, 100) + "=FILE.npy)");
    r.push_back(graph::read_npy(it->second));
    files.erase(it);
  }
  if (!files.empty()) throw attune::Error("run-model: --input names '" + files.begin()->first.substr(0, 100) + "', which is not a graph input");
  return r;
}

// A graph output's file name: its ONNX name with anything but letters, digits, '-', '_', '.'
// replaced, so that no name can leave the output directory.
std::string output_file(const std::string& name, std::size_t k) {
  std::string s;
  for (char c : name.substr(0, 100)) s += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return (s.empty() ? "output" + std::to_string(k) : s) + ".npy";
}

int run_run_model(const ModelArgs& a) {
  graph::ModelPlan plan = graph::import_onnx(a.model, overrides(a.shapes));
  const auto inputs = read_inputs(plan, a.inputs);
  network::ModelRunner runner(std::move(plan), {a.target, a.db, a.threads});
  int untuned = 0;
  for (std::size_t t = 0; t < runner.kernels().size(); ++t)
    if (!runner.kernels()[t].tuned) {
      ++untuned;
      std::cerr << "run-model: task " << t << " (" << runner.plan().tasks[t].label << ") is untuned: default schedule\n";
    }
  const auto outputs = runner.run(inputs);
  std::filesystem::create_directories(a.output_dir);
  const auto& g = runner.plan().graph;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const auto path = (std::filesystem::path(a.output_dir) / output_file(g.values[g.outputs[k]].name, k)).string();
    graph::write_npy(path, outputs[k]);
    std::cout << "output " << g.values[g.outputs[k]].name.substr(0, 100) << " " << graph::shape_str(outputs[k].shape) << " -> " << path << "\n";
  }
  std::cout << "run-model: " << runner.plan().steps.size() << " steps, " << runner.kernels().size() << " kernels ("
            << runner.kernels().size() - untuned << " tuned, " << untuned << " default), arena "
            << runner.arena_bytes() / 1024 << " KiB (" << runner.unshared_bytes() / 1024 << " KiB unshared)\n";
  return 0;
}

}  // namespace

void add_model_commands(CLI::App& app, Action& action) {
  static ModelArgs imp;
  auto* sub = app.add_subcommand("import", "Read an ONNX model; print its graph and the tuning tasks it becomes");
  sub->add_option("MODEL", imp.model, "the .onnx file")->required();
  sub->add_option("--shape", imp.shapes, "fix a graph input's shape: NAME=D1,D2,... (repeatable)");
  sub->add_flag("--specs", imp.specs, "print each task's spec");
  sub->callback([&action] { action = [] { return run_import(imp); }; });

  static ModelArgs run;
  auto* r = app.add_subcommand("run-model", "Run an ONNX model with tuned kernels (default ones where untuned)");
  r->add_option("MODEL", run.model, "the .onnx file")->required();
  r->add_option("--input", run.inputs, "a graph input: NAME=FILE.npy (one per input)")->required();
  r->add_option("--output", run.output_dir, "directory for the outputs (NAME.npy)")->required();
  r->add_option("--shape", run.shapes, "fix a graph input's shape: NAME=D1,D2,... (repeatable)");
  r->add_option("--target", run.target, "cpu target (default: this CPU's)");
  r->add_option("--db", run.db, "tuning database with tuned kernels (default: none, every task untuned)");
  r->add_option("--threads", run.threads, "threads per kernel (default: all cores)")->check(CLI::Range(0, 4096));
  r->callback([&action] { action = [] { return run_run_model(run); }; });
}

}  // namespace attune::cli
