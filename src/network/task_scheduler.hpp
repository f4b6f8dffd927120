// network/task_scheduler.hpp — `attune tune-model`: one tuning budget spread over a network's
// tasks so that the network gets faster, not each task alike.
//
// Ansor's gradient-based task scheduler (Zheng et al., OSDI 2020, section 6), on attune's
// tuner: the objective is the model's latency estimate f = sum_i w_i g_i, with w_i the task's
// weight (steps that run it) and g_i its best measured time. After a warm-up round that gives
// every task `round_trials` attempts, each round goes to the task with the largest expected
// gain  w_i * (alpha * backward_i + (1 - alpha) * forward_i),  backward_i the time its last
// round saved per trial, forward_i = g_i / t_i the optimistic guess that its time keeps falling
// like 1/trials. A task whose last `patience` rounds saved under 1% is dead and gets no more
// while others are alive; when all are dead, all are revived (the budget is there to be spent).
// Every round is a resumed attune::tune() on the shared database: records already there for the
// same task and target count (a second model sharing layers tunes only what is new, and a
// killed run resumes where it stopped). Inside the caller's InterruptScope (runtime/
// interrupt.hpp), SIGINT/SIGTERM end the round in flight after committing what was measured
// and return with `interrupted` set.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "db/db.hpp"
#include "graph/plan.hpp"
#include "network/network_pick.hpp"

namespace attune::network {

struct ModelTuneOptions {
  std::string target = "cpu";
  std::string db_path = "attune.db";
  double time_s = 600;       // wall-clock budget of this run
  int threads = 0;           // threads each candidate (and the model) runs with; 0: all cores
  std::string strategy = "evolutionary";
  RunInfo run;  // noted in the database's runs table when its command is not empty (the CLI's)
  int round_trials = 16;     // attempts per round
  int patience = 3;          // rounds without a 1% gain before a task is dropped
  double alpha = 0.2;        // weight of the observed gain against the optimistic guess
  std::uint64_t max_memory = 0;  // per task, as attune tune --max-memory (0: half of physical memory)
  std::string workers = "local";  // "remote": measured by `attune worker`s (TuneOptions::workers)
  std::function<void(const std::string&)> log;  // one line per round (progress)
  // After the budget: each task's kernel picked among its this many fastest by their time in
  // the network (network_pick.hpp); 0 or 1: no pick. Not inside time_s: it runs the network
  // pick_rounds x pick_alternatives times and builds the kernels it tries.
  int pick_alternatives = 4;
  int pick_rounds = 8;
};

struct TaskTuneState {
  int trials = 0;            // attempts recorded for the task (earlier runs included)
  double best_s = 0;         // best verified time; 0 while none
  double last_gain_per_trial = 0;
  int stale_rounds = 0;
  bool dead = false;
  bool exhausted = false;  // a round found nothing left to try in its space
};

struct ModelTuneResult {
  std::vector<TaskTuneState> tasks;  // per plan task
  int rounds = 0;
  int trials_run = 0;
  double elapsed_s = 0;
  double estimate_s = 0;       // sum of weight x best time over tasks with one
  int tasks_with_kernel = 0;   // tasks with a verified record
  int interrupted = 0;         // the signal that stopped the run, 0 when none did
  NetworkPickResult pick;      // its skipped says why when no pick ran
};

ModelTuneResult tune_model(const graph::ModelPlan& plan, const ModelTuneOptions& options);

}  // namespace attune::network
