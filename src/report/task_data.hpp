// report/task_data.hpp — what the report shows of each task, gathered from tuning databases.
//
// The databases are opened read-only. A task is keyed by its hash (spec and target), so the
// same task in several databases (one per seed or strategy, as attune-tuning-efficiency keeps
// them) is one task with one curve per (database, strategy). Confirmations (strategy
// kConfirmStrategy) re-measure traces already tried: they are counted, not drawn as trials.
// A task whose spec no longer parses (a database from elsewhere) is shown in calls per second
// instead of GFLOP/s, and has no place on the roofline.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/db.hpp"
#include "report/svg.hpp"

namespace attune::report {

// One tuning run's best-so-far curve: a strategy's records in one database.
struct RunCurve {
  std::string label;
  std::vector<Point> by_trial;  // (trial number, best so far)
  std::vector<Point> by_time;   // (seconds since the run's first record, best so far)
};

struct StatusCount {
  std::string status;
  std::int64_t count = 0;
  std::vector<std::string> examples;  // "trial 12: message" (untrusted; escaped when shown)
};

// One arm of a mapping space (the loop-nest schedules, or one mapping onto an intrinsic).
struct ArmUse {
  std::string arm;
  std::int64_t trials = 0, valid = 0;
  double best = 0;  // in the task's metric
};

// What strategy ml2 predicted for the candidates it measured (features.ml2, written at tune
// time), against what they measured.
struct Ml2Predictions {
  std::vector<Point> p, a;  // (model score, measured metric) of the ok records that have one
  std::int64_t v_valid_ok = 0, v_valid_failed = 0, v_invalid_ok = 0, v_invalid_failed = 0;
  std::int64_t v_count = 0;  // records with a V prediction
  bool any() const { return !p.empty() || !a.empty() || v_count > 0; }
};

struct TaskData {
  TaskInfo task;
  std::vector<std::string> dbs;  // the databases it came from
  bool have_op = false;          // the spec parsed: flops and bytes are known
  double flops = 0, bytes = 0;
  std::string metric;  // "GFLOP/s" or "calls/s"
  std::vector<RunCurve> runs;
  std::vector<Series> spread;  // every ok measurement (trial, metric), one series per run
  std::vector<StatusCount> statuses;
  std::vector<ArmUse> arms;  // empty unless the task was tuned over mappings
  Ml2Predictions ml2;
  std::int64_t trials = 0, confirmations = 0;
  double best = 0;  // the best ok measurement in the metric (0: none)
  std::map<std::string, std::int64_t> compilers, strategies;
  std::string first_at, last_at;  // created_at of its first and last record
};

// The tasks of `db_paths` that `only` selects (all when empty; a name, a task id, or a spec
// whose canonical text matches), in the order of their first database's ids. Throws Error
// (one line, naming the path) when a database cannot be opened.
std::vector<TaskData> gather_tasks(const std::vector<std::string>& db_paths, const std::vector<std::string>& only);

// What started the tuning runs of each database (its runs table; none in a database of an older
// schema, or written by the API or a bench, which note no command).
struct DbRuns {
  std::string db;
  std::vector<RunInfo> runs;
};
std::vector<DbRuns> gather_runs(const std::vector<std::string>& db_paths);

// Seconds since the epoch of an ISO-8601 UTC time as the database writes it
// ("2025-01-31T12:34:56.789Z"); nullopt for anything else.
std::optional<double> parse_utc(const std::string& iso);

// The arm a record's trace belongs to: "loop-nest schedules", or "INTRINSIC mapping #N" for a
// trace that ends in a tensorize step.
std::string arm_of_trace(const std::string& trace_json);

}  // namespace attune::report
