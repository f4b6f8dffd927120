// network/network_pick.hpp — choosing each task's kernel by its time inside the network.
//
// Tuning times a task alone: its weights evicted, its activations as its own previous call
// left them (runtime/worker.cpp). Inside the network a step reads what the step before wrote,
// in that step's cache state and, at more than one thread, in that step's split over the
// cores; its kernel then runs up to 1.4x (one thread) or 2x (two) its time alone
// (docs/results/models-2026-12-06.md), and not every kernel by the same factor. So after
// tuning, `tune-model` runs the network itself with each task's few fastest verified kernels
// (`alternatives`, the tuned best first), in interleaved rounds where every task draws its
// kernel by a shuffled cycle (a task's time is then an average over its neighbours'
// choices), and picks per task the kernel with the lowest median time per step. A pick that
// does not beat the tuned best by `min_gain` keeps it.
//
// The picks are stored in the database (a models-table entry of kind "network-pick/<threads>"
// per target: per task spec, the record picked and the tuned best it was picked over), so
// run-model, the C++ API and libgen --model use them. A pick counts only while the task's
// tuned best is still the record it was picked over: tuning that finds a better kernel makes
// it stale, and the next pick measures again.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "db/db.hpp"
#include "graph/plan.hpp"

namespace attune::network {

// One task's pick: `record` runs instead of the tuned best `over`.
struct NetworkPick {
  std::int64_t record = 0;
  std::int64_t over = 0;
  double network_s = 0;       // median time per step in the network, picked kernel
  double over_network_s = 0;  // the same for the tuned best
};

// The picks stored for `target` at `threads`, by canonical task spec.
std::map<std::string, NetworkPick> load_network_picks(const Database& db, const std::string& target, int threads);

struct NetworkPickOptions {
  std::string target = "cpu";
  std::string db_path;
  int threads = 0;           // 0: all cores
  int alternatives = 4;      // kernels tried per task, the tuned best included
  int rounds = 8;            // timed runs per alternative
  double min_gain = 0.02;    // a pick must be this much faster than the tuned best
  std::uint64_t max_memory = 0;
  std::uint64_t seed = 1;    // the draws of kernels per round and the random inputs
  std::function<void(const std::string&)> log;
};

struct TaskPickResult {
  int alternatives = 0;    // kernels tried (0: untuned, not part of the pick)
  double best_s = 0;       // median per step in the network, tuned best
  double picked_s = 0;     // the same, kernel picked
  bool changed = false;    // the pick is not the tuned best
};

struct NetworkPickResult {
  std::vector<TaskPickResult> tasks;  // per plan task
  double before_s = 0;  // sum over tasks of weight x median per step, tuned bests
  double after_s = 0;   // the same with the picks
  int changed = 0;
  double elapsed_s = 0;
  std::string skipped;  // why no pick was made (empty when one was)
};

// Measures, picks and stores (read-write on options.db_path). Throws Error as ModelRunner does.
NetworkPickResult pick_in_network(const graph::ModelPlan& plan, const NetworkPickOptions& options);

}  // namespace attune::network
