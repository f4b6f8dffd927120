// task_scheduler.cpp — the gradient-based allocation of task_scheduler.hpp.
#include "network/task_scheduler.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>

#include "db/db.hpp"
#include "ir/op.hpp"
#include "runtime/memory_estimate.hpp"
#include "search/tuner.hpp"

namespace attune::network {

namespace {

using Clock = std::chrono::steady_clock;

double estimate(const graph::ModelPlan& plan, const std::vector<TaskTuneState>& s, int* with_kernel) {
  double f = 0;
  *with_kernel = 0;
  for (std::size_t t = 0; t < s.size(); ++t)
    if (s[t].best_s > 0) f += plan.tasks[t].weight * s[t].best_s, ++*with_kernel;
  return f;
}

// The expected latency saved per trial by one more round of task t (larger is better).
double expected_gain(const graph::ModelPlan& plan, const TaskTuneState& s, int t, double alpha) {
  if (s.dead) return -1;
  if (s.best_s <= 0) return std::numeric_limits<double>::max();  // nothing valid yet: most urgent
  const double forward = s.best_s / std::max(1, s.trials);
  return plan.tasks[t].weight * (alpha * s.last_gain_per_trial + (1 - alpha) * forward);
}

std::string line(const char* fmt, double a, double b, int task, const std::string& label, int weight, int trials,
                 double best_us, double est_ms, int with, int total) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, a, b, task, label.substr(0, 60).c_str(), weight, trials, best_us, est_ms, with, total);
  return buf;
}

}  // namespace

ModelTuneResult tune_model(const graph::ModelPlan& plan, const ModelTuneOptions& o) {
  ModelTuneResult r;
  r.tasks.resize(plan.tasks.size());
  std::vector<Op> ops;
  for (const auto& t : plan.tasks) {
    ops.push_back(parse_spec(t.spec));
    check_memory_limit(ops.back(), o.max_memory ? o.max_memory : default_memory_limit());  // before any tuning
  }
  const int threads = effective_threads(o.threads);  // what its records say they were measured at
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  // One round of task t: resume its tuning up to `round_trials` more attempts.
  auto round = [&](int t) {
    TaskTuneState& s = r.tasks[t];
    TuneOptions to;
    to.target = o.target;
    to.db_path = o.db_path;
    to.strategy = o.strategy;
    to.threads = o.threads;
    to.workers = o.workers;
    to.trials = s.trials + o.round_trials;
    to.time_s = std::max(1.0, o.time_s - elapsed());
    to.confirm_top = 2;
    to.confirm_runs = 1;
    to.seed = static_cast<std::uint64_t>(s.trials) * 7919 + static_cast<std::uint64_t>(t);
    const double before = s.best_s;
    const TuneResult tr = tune(ops[t], to);
    r.trials_run += tr.trials_run;
    s.trials = tr.trials_total;
    if (tr.best) s.best_s = tr.best->median_s;
    const bool gained = before > 0 && s.best_s > 0 && s.best_s < before * 0.99;
    s.last_gain_per_trial = before > 0 && s.best_s > 0 ? std::max(0.0, before - s.best_s) / std::max(1, tr.trials_run) : 0;
    s.stale_rounds = before <= 0 && s.best_s > 0 ? 0 : gained ? 0 : s.stale_rounds + 1;
    s.exhausted = tr.trials_run == 0 && tr.interrupted == 0;  // its space has nothing left to try
    s.dead = s.stale_rounds >= o.patience || s.exhausted;
    ++r.rounds;
    int with = 0;
    const double est = estimate(plan, r.tasks, &with);
    if (o.log)
      o.log(line("[%6.0fs/%.0fs] task %d %s x%d: %d trials, best %.1f us | model estimate %.3f ms (%d/%d tasks tuned)",
                 elapsed(), o.time_s, t, plan.tasks[t].label, plan.tasks[t].weight, s.trials, s.best_s * 1e6, est * 1e3,
                 with, static_cast<int>(plan.tasks.size())));
    return tr.interrupted;
  };

  // What the database already holds: an earlier run of this model, or another model sharing tasks.
  {
    Database db = Database::open(o.db_path, OpenMode::read_write_create);
    if (!o.run.command.empty()) db.add_run(o.run);  // once for the model, not per task's tune()
    const std::string target = tuning_target_name(o.target);
    for (std::size_t t = 0; t < ops.size(); ++t)
      if (const auto task = db.find_task(canonical_spec(ops[t]), target)) {
        r.tasks[t].trials = static_cast<int>(db.counts(task->id).trials);
        if (const auto best = best_measured_at(db, task->id, threads)) r.tasks[t].best_s = best->median_s;
      }
  }
  // Warm-up: every task reaches one round's worth of attempts (resumed tasks may already have).
  for (int t = 0; t < static_cast<int>(plan.tasks.size()) && !r.interrupted && elapsed() < o.time_s; ++t)
    if (r.tasks[t].trials < o.round_trials) r.interrupted = round(t);
  while (!r.interrupted && elapsed() < o.time_s) {
    int best = -1;
    double best_gain = 0;
    for (int t = 0; t < static_cast<int>(plan.tasks.size()); ++t) {
      const double g = expected_gain(plan, r.tasks[t], t, o.alpha);
      if (g > best_gain) best = t, best_gain = g;
    }
    if (best < 0) {  // every task is dead: the budget is the user's to spend, so all get another go
      bool any = false;
      for (auto& s : r.tasks)
        if (s.dead && !s.exhausted) s.dead = false, s.stale_rounds = 0, any = true;
      if (!any) break;
      continue;
    }
    r.interrupted = round(best);
  }
  r.elapsed_s = elapsed();
  r.estimate_s = estimate(plan, r.tasks, &r.tasks_with_kernel);
  if (r.interrupted)
    r.pick.skipped = "interrupted";
  else if (o.pick_alternatives <= 1)
    r.pick.skipped = "not asked for";
  else if (r.tasks_with_kernel == 0)
    r.pick.skipped = "no task has a verified kernel";
  else {
    NetworkPickOptions po;
    po.target = o.target;
    po.db_path = o.db_path;
    po.threads = o.threads;
    po.alternatives = o.pick_alternatives;
    po.rounds = o.pick_rounds;
    po.max_memory = o.max_memory;
    po.log = o.log;
    r.pick = pick_in_network(plan, po);
  }
  return r;
}

}  // namespace attune::network
