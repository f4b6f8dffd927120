// cmd_model.cpp — `attune import` (an ONNX model's graph and the tuning tasks it becomes) and
// `attune run-model` (the network run with tuned or default kernels, .npy in and out).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/cli_common.hpp"
#include "db/db.hpp"
#include "graph/import.hpp"
#include "graph/npy.hpp"
#include "ir/error.hpp"
#include "network/model_runner.hpp"
#include "network/task_scheduler.hpp"
#include "runtime/interrupt.hpp"
#include "runtime/memory_estimate.hpp"

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
  int rounds = 0;       // run-model: timed runs after a warm-up (0: none)
  bool profile = false; // run-model: time each task over the rounds
  std::string profile_json;  // run-model: the profile as one JSON line, for attune report --bench
  std::string time = "10m";  // tune-model
  std::string strategy = "evolutionary";
  int round_trials = 16;
  int pick = 4;  // tune-model: kernels per task tried in the network after tuning (0: none)
  std::string max_memory;  // run-model, tune-model: "8G" (empty: half of physical memory)
  std::string workers = "local";  // tune-model: local or remote
};

std::uint64_t memory_limit(const std::string& text) {
  return text.empty() ? 0 : parse_byte_size(text, "--max-memory");
}

// "90", "90s", "15m", "1h" -> seconds.
double parse_duration(const std::string& s) {
  std::size_t used = 0;
  double v = -1;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = s.substr(used);
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  if (used == 0 || scale < 0 || !(v > 0) || v * scale > 7 * 24 * 3600)
    throw attune::Error("--time '" + s.substr(0, 40) + "': expected a positive duration such as 90s, 15m or 1h");
  return v * scale;
}

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

// Each task's share of the timed runs, largest first.
void print_profile(const network::ModelRunner& runner, const std::vector<double>& per_task, int rounds) {
  double total = 0;
  for (double s : per_task) total += s;
  std::vector<std::size_t> order(per_task.size());
  for (std::size_t t = 0; t < order.size(); ++t) order[t] = t;
  std::sort(order.begin(), order.end(), [&](auto x, auto y) { return per_task[x] > per_task[y]; });
  // A tuned task also shows what its calls would take at the time tuning measured per call, so
  // a kernel that runs slower inside the network than alone stands out.
  std::cout << "profile (time per run, share; tuned: weight x the time tuning measured):\n";
  for (auto t : order) {
    const auto& task = runner.plan().tasks[t];
    const auto& k = runner.kernels()[t];
    std::printf("  task %3zu %-28s x%-3d %10.3f ms %5.1f%%  ", t, task.label.substr(0, 28).c_str(), task.weight,
                per_task[t] / rounds * 1e3, 100 * per_task[t] / std::max(total, 1e-12));
    if (k.tuned)
      std::printf("tuned %.3f ms\n", task.weight * k.tuned_seconds * 1e3);
    else
      std::printf("default\n");
  }
}

// The profile as one "model-profile" line (src/report/bench_data.hpp): run once without --db
// and once with it, and the report shows each task's time before and after tuning.
void write_profile_json(const ModelArgs& a, const network::ModelRunner& runner, const std::vector<double>& per_task,
                        double median_s) {
  nlohmann::json tasks = nlohmann::json::array();
  int tuned = 0;
  for (std::size_t t = 0; t < per_task.size(); ++t) {
    const auto& task = runner.plan().tasks[t];
    const bool is_tuned = runner.kernels()[t].tuned;
    tuned += is_tuned ? 1 : 0;
    tasks.push_back({{"task", t},
                     {"label", task.label},
                     {"weight", task.weight},
                     {"ms", per_task[t] / a.rounds * 1e3},
                     {"tuned", is_tuned}});
  }
  const nlohmann::json line = {{"kind", "model-profile"},
                               {"model", a.model},
                               {"db", a.db},
                               {"command", command_line()},
                               {"threads", a.threads},
                               {"rounds", a.rounds},
                               {"median_ms", median_s * 1e3},
                               {"kernels", per_task.size()},
                               {"tuned", tuned},
                               {"tasks", tasks}};
  write_file_atomic(a.profile_json, line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

int run_run_model(const ModelArgs& a) {
  if (!a.profile_json.empty() && a.rounds <= 0) throw Error("--profile-json needs --rounds N (N > 0)");
  graph::ModelPlan plan = graph::import_onnx(a.model, overrides(a.shapes));
  const auto inputs = read_inputs(plan, a.inputs);
  network::ModelRunner runner(std::move(plan), {a.target, a.db, a.threads, memory_limit(a.max_memory)});
  int untuned = 0;
  const auto picked = std::count_if(runner.kernels().begin(), runner.kernels().end(),
                                    [](const network::TaskKernel& k) { return k.picked; });
  for (std::size_t t = 0; t < runner.kernels().size(); ++t)
    if (!runner.kernels()[t].tuned) {
      ++untuned;
      const std::string& why = runner.kernels()[t].why_default;
      std::cerr << "run-model: task " << t << " (" << runner.plan().tasks[t].label << ") is untuned: default schedule"
                << (why.empty() ? "" : " (" + why + ")") << "\n";
    }
  auto outputs = runner.run(inputs);
  if (a.rounds > 0) {  // latency: the median of `rounds` runs after the one above (warm-up)
    std::vector<double> t, per_task;
    for (int k = 0; k < a.rounds; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      outputs = runner.run(inputs, a.profile || !a.profile_json.empty() ? &per_task : nullptr);
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    if (a.profile) print_profile(runner, per_task, a.rounds);
    std::sort(t.begin(), t.end());
    if (!a.profile_json.empty()) write_profile_json(a, runner, per_task, t[t.size() / 2]);
    std::cout << "latency: median " << t[t.size() / 2] * 1e3 << " ms of " << a.rounds << " runs (min " << t.front() * 1e3
              << " ms), " << (a.threads > 0 ? std::to_string(a.threads) : std::string("all")) << " threads\n";
  }
  std::filesystem::create_directories(a.output_dir);
  const auto& g = runner.plan().graph;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const auto path = (std::filesystem::path(a.output_dir) / output_file(g.values[g.outputs[k]].name, k)).string();
    graph::write_npy(path, outputs[k]);
    std::cout << "output " << g.values[g.outputs[k]].name.substr(0, 100) << " " << graph::shape_str(outputs[k].shape) << " -> " << path << "\n";
  }
  std::cout << "run-model: " << runner.plan().steps.size() << " steps, " << runner.kernels().size() << " kernels ("
            << runner.kernels().size() - untuned << " tuned, " << untuned << " default, " << picked
            << " picked in the network), arena "
            << runner.arena_bytes() / 1024 << " KiB (" << runner.unshared_bytes() / 1024 << " KiB unshared), "
            << runner.packed_bytes() / 1024 << " KiB of weights packed at load\n";
  return 0;
}

int run_tune_model(const ModelArgs& a) {
  const graph::ModelPlan plan = graph::import_onnx(a.model, overrides(a.shapes));
  network::ModelTuneOptions o;
  o.target = a.target;
  o.db_path = a.db;
  o.time_s = parse_duration(a.time);
  o.threads = a.threads;
  o.strategy = a.strategy;
  o.run = this_run();
  o.round_trials = a.round_trials;
  o.pick_alternatives = a.pick;
  o.workers = a.workers;
  o.max_memory = memory_limit(a.max_memory);
  o.log = [](const std::string& l) { std::cout << l << std::endl; };
  std::cout << "tune-model: " << plan.tasks.size() << " tasks (" << plan.steps.size() << " steps), budget " << o.time_s
            << " s, database " << database_display_name(a.db) << std::endl;
  const InterruptScope interruptible;  // SIGINT/SIGTERM: stop after the round in flight
  const auto r = network::tune_model(plan, o);
  std::cout << "tune-model: " << r.rounds << " rounds, " << r.trials_run << " trials in " << static_cast<int>(r.elapsed_s)
            << " s; " << r.tasks_with_kernel << "/" << plan.tasks.size() << " tasks tuned; model estimate "
            << r.estimate_s * 1e3 << " ms (sum of weight x best kernel time)\n";
  std::cout << "top tasks by estimated time:\n";
  std::vector<std::size_t> order(plan.tasks.size());
  for (std::size_t t = 0; t < order.size(); ++t) order[t] = t;
  std::sort(order.begin(), order.end(), [&](auto x, auto y) {
    return plan.tasks[x].weight * r.tasks[x].best_s > plan.tasks[y].weight * r.tasks[y].best_s;
  });
  for (std::size_t k = 0; k < std::min<std::size_t>(8, order.size()); ++k) {
    const auto t = order[k];
    const double share = r.estimate_s > 0 ? 100.0 * plan.tasks[t].weight * r.tasks[t].best_s / r.estimate_s : 0;
    std::cout << "  task " << t << " " << plan.tasks[t].label << " x" << plan.tasks[t].weight << ": " << r.tasks[t].trials
              << " trials, " << r.tasks[t].best_s * 1e6 << " us, " << static_cast<int>(share) << "%"
              << (r.tasks[t].dead ? " (converged)" : "") << "\n";
  }
  if (r.pick.skipped.empty())
    std::cout << "network pick: " << r.pick.changed << " of " << plan.tasks.size()
              << " tasks run another of their fastest kernels; in the network " << r.pick.before_s * 1e3 << " -> "
              << r.pick.after_s * 1e3 << " ms (sum of weight x median step time), " << r.pick.elapsed_s << " s\n";
  else
    std::cout << "network pick: none (" << r.pick.skipped << ")\n";
  if (r.interrupted) {
    std::cout << "tune-model: stopped by " << signal_name(r.interrupted) << "; every measured trial is in " << a.db
              << " (run again to resume)\n";
    return interrupted_exit_code(r.interrupted);
  }
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
  r->add_option("--rounds", run.rounds, "time this many runs after a warm-up and print the median latency")
      ->check(CLI::Range(0, 100000));
  r->add_flag("--profile", run.profile, "with --rounds: each task's share of the time");
  r->add_option("--profile-json", run.profile_json,
                "with --rounds: write the profile as one JSON line to this file (attune report --bench)");
  r->add_option("--max-memory", run.max_memory, "refuse a model whose weights and buffers exceed this (default: half of RAM)");
  r->callback([&action] { action = [] { return run_run_model(run); }; });

  static ModelArgs tm;
  auto* t = app.add_subcommand("tune-model", "Tune every task of an ONNX model, the budget where it saves most");
  t->add_option("MODEL", tm.model, "the .onnx file")->required();
  t->add_option("--time", tm.time, "wall-clock budget of this run: 90s, 15m, 1h (default 10m)");
  t->add_option("--db", tm.db, "tuning database (shared with attune tune; created when missing)")->required();
  t->add_option("--shape", tm.shapes, "fix a graph input's shape: NAME=D1,D2,... (repeatable)");
  t->add_option("--target", tm.target, "cpu target (default: this CPU's)");
  t->add_option("--threads", tm.threads, "threads each candidate runs with (default: all cores)")->check(CLI::Range(0, 4096));
  t->add_option("--strategy", tm.strategy, "search strategy per task (as attune tune; default evolutionary)");
  t->add_option("--max-memory", tm.max_memory, "refuse a task whose measurement would exceed this (default: half of RAM)");
  t->add_option("--round-trials", tm.round_trials, "attempts per scheduling round (default 16)")->check(CLI::Range(1, 10000));
  t->add_option("--pick", tm.pick,
                 "after tuning, run the network with each task's N fastest kernels and keep the fastest there "
                 "(default 4; 0: keep the tuned bests)")
      ->check(CLI::Range(0, 16));
  t->add_option("--workers", tm.workers,
                 "where candidates are measured: local, or remote (jobs in the database for `attune worker`s)")
      ->check(CLI::IsMember({"local", "remote"}));
  t->callback([&action] { action = [] { return run_tune_model(tm); }; });
}

}  // namespace attune::cli
