// cmd_tune.cpp — `attune tune SPEC`: runs the tuning loop (tuner.hpp) with live progress and a
// closing summary. Every attempt is committed to the database as it finishes, so an
// interrupted run resumes where it stopped when the same command is given again. SIGINT and
// SIGTERM stop it cleanly (interrupt.hpp): the batch in flight is abandoned, the summary is
// printed, and the exit status is 130 or 143.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/cli_common.hpp"
#include "codegen/codegen_vta.hpp"
#include "hw/target.hpp"
#include "ir/error.hpp"
#include "ir/json_limits.hpp"
#include "model/transfer_model.hpp"
#include "runtime/interrupt.hpp"
#include "search/tuner.hpp"

namespace attune::cli {

namespace {

struct TuneArgs {
  std::string spec;
  std::string target = "cpu";
  int trials = 0;     // 0: not given
  double time_s = 0;  // 0: not given
  std::string strategy = "evolutionary";
  std::string db = kDefaultDb;
  std::uint64_t seed = 0;
  int threads = 0;
  bool json = false;
  std::string policy;  // strategy rl
  std::string mappings = "auto";
  int max_mappings = 8;
  int confirm_top = TuneOptions{}.confirm_top;
  int confirm_runs = TuneOptions{}.confirm_runs;
  std::string max_memory;  // "": half of physical memory
  std::string workers = "local";
};

// On a terminal: one line redrawn in place. Elsewhere (logs, CI): a plain line at most every
// two seconds, and the last state once tuning ends.
class ProgressLine {
 public:
  ProgressLine() : tty_(stderr_is_terminal()) {}
  // When tune() throws, end the redrawn line so the error starts on its own.
  ~ProgressLine() {
    if (tty_ && seen_ && !finished_) std::cerr << "\n";
  }

  void update(const TuneProgress& p) {
    last_ = p;
    seen_ = true;
    last_printed_ = false;
    const auto now = std::chrono::steady_clock::now();
    if (tty_) {
      std::cerr << "\r\033[K" << text(p) << std::flush;
      return;
    }
    if (printed_ && now - last_print_ < std::chrono::seconds(2)) return;
    print_line(p);
  }

  void finish() {
    finished_ = true;
    if (tty_) {
      if (seen_) std::cerr << "\n";
      return;
    }
    if (seen_ && !last_printed_) print_line(last_);
  }

 private:
  void print_line(const TuneProgress& p) {
    std::cerr << text(p) << std::endl;
    printed_ = true;
    last_printed_ = true;
    last_print_ = std::chrono::steady_clock::now();
  }

  static std::string text(const TuneProgress& p) {
    std::string s = "tune: " + std::to_string(p.trials) + (p.budget > 0 ? "/" + std::to_string(p.budget) : "") +
                    " trials, " + std::to_string(p.valid) + " valid";
    if (p.best_time_s > 0) s += ", best " + fixed(p.best_gflops, 1) + " GFLOP/s (" + format_time(p.best_time_s) + ")";
    s += ", " + format_duration(p.elapsed_s) + " elapsed";
    if (p.eta_s >= 0) s += ", ETA " + format_duration(p.eta_s);
    return s;
  }

  bool tty_;
  bool seen_ = false, printed_ = false, last_printed_ = false, finished_ = false;
  TuneProgress last_;
  std::chrono::steady_clock::time_point last_print_;
};

// What the user asked for, as tune()'s options (`target` resolved); no progress callback yet.
TuneOptions tune_options(const TuneArgs& a, const std::string& target) {
  TuneOptions o;
  o.target = target;
  if (a.trials > 0 || a.time_s > 0) {
    o.trials = a.trials;  // 0 with only --time: no trial limit
    o.time_s = a.time_s;
  }
  o.strategy = a.strategy;
  o.db_path = a.db;
  o.seed = a.seed;
  o.threads = a.threads;
  o.policy = a.policy;
  o.mappings = a.mappings;
  o.run = this_run();
  o.max_mappings = a.max_mappings;
  o.confirm_top = a.confirm_top;
  o.confirm_runs = a.confirm_runs;
  o.workers = a.workers;
  return o;
}

// --json: the summary as one object, for scripts.
void print_json_summary(const Op& op, const std::string& target_name, const TuneArgs& a, const TuneResult& r) {
  const bool found = r.best.has_value();
  nlohmann::json j = {{"op", op.name},
                      {"target", target_name},
                      {"status", found ? "ok" : "no_valid_candidate"},
                      {"gflops", r.best_gflops},
                      {"time_ms", found ? nlohmann::json(r.best->median_s * 1e3) : nlohmann::json()},
                      {"trials", r.trials_total},
                      {"trials_run", r.trials_run},
                      {"resumed", r.trials_before},
                      {"measured", r.measured},
                      {"confirmations", r.confirmations},
                      {"valid", r.valid},
                      {"elapsed_s", r.elapsed_s},
                      {"candidates_per_minute", r.candidates_per_minute},
                      {"trace", found ? parse_json_limited(r.best->trace, "trace") : nlohmann::json()},
                      {"db", r.db},
                      {"task_id", r.task_id},
                      {"interrupted", r.interrupted ? nlohmann::json(signal_name(r.interrupted)) : nlohmann::json()}};
  j["phases_s"] = r.phases_s;
  if (!r.arms.empty()) {
    j["arms"] = nlohmann::json::array();
    for (const auto& arm : r.arms)
      j["arms"].push_back(
          {{"arm", arm.name}, {"trials", arm.trials}, {"valid", arm.valid}, {"gflops", arm.best_gflops}});
  }
  std::cout << j.dump() << std::endl;
}

// Where an attempt's time goes: each phase's wall time per attempt of this run, largest first
// (TuneResult::phases_s; compiling runs in parallel, so its figure is the wall time it held
// the loop, not the compilers' CPU time).
void print_phases(const TuneResult& r) {
  if (r.trials_run <= 0 || r.phases_s.empty()) return;
  std::vector<std::pair<double, std::string>> by_time;
  double total = 0;
  for (const auto& [phase, s] : r.phases_s) {
    by_time.emplace_back(s, phase);
    total += s;
  }
  std::sort(by_time.rbegin(), by_time.rend());
  std::cout << "per trial " << fixed(1e3 * total / r.trials_run, 0) << " ms:";
  for (const auto& [s, phase] : by_time) {
    if (1e3 * s / r.trials_run < 0.5) continue;
    std::cout << " " << phase << " " << fixed(1e3 * s / r.trials_run, 0);
  }
  std::cout << "\n";
}

// How zero-shot chose: the pick rule the target's stored transfer model carries (none when the
// database was read-only and the rule was judged in memory only).
void print_pick_rule(const Database& db, const std::string& target) {
  const auto blob = db.latest_model(target, kTransferModelKind);
  if (!blob) return;
  std::optional<PickRule> rule;
  try {
    rule = TransferModel::load(blob->blob).pick_rule;
  } catch (const Error&) {
    return;  // written by another version
  }
  if (!rule) return;
  std::cout << "rule      " << (rule->among == 1 ? "P alone" : "A among P's first " + std::to_string(rule->among))
            << (rule->families > 0 ? " (judged on this database's " + std::to_string(rule->families) +
                                         " op families, each left out in turn)"
                                   : std::string(" (the default: the database has too few op families to judge)"))
            << "\n";
}

// Zero-shot: the pick this run measured (the task's best may be an earlier run's).
void print_pick(const TuneResult& r, const std::string& target) {
  if (r.record_ids.empty()) {
    std::cout << "pick      none: the task's records leave nothing to predict\n";
    return;
  }
  const Database db = Database::open(r.db, OpenMode::read_only);
  const auto rec = db.record(r.record_ids.back());
  if (!rec) return;
  std::cout << "pick      record " << rec->id << ", " << status_name(rec->status);
  if (rec->ok()) std::cout << ", " << format_time(rec->median_s) << " (one kernel timed, checked against the reference)";
  std::cout << " after " << r.record_ids.size() << " attempt" << (r.record_ids.size() == 1 ? "" : "s") << "\n";
  print_pick_rule(db, target);
}

// The summary for people: the task, its trials, the best kernel and how it was found.
void print_text_summary(const Op& op, const std::string& target_name, const TuneArgs& a, const TuneResult& r) {
  const int total = r.trials_total;
  const int alongside = total - r.trials_before - r.trials_run;  // by other runs at the same time
  std::cout << "task      " << (op.name.empty() ? "(unnamed op)" : op.name) << " on " << target_name << " (task "
            << r.task_id << ")\n"
            << "trials    " << total << " (" << r.trials_run << " this run, " << r.trials_before << " resumed"
            << (alongside > 0 ? ", " + std::to_string(alongside) + " by another run" : std::string()) << ")\n"
            << "valid     " << r.valid << "\n";
  if (r.confirmations > 0)
    std::cout << "confirmed " << r.confirmations << " re-measurements of the fastest traces (best: median of each)\n";
  if (r.best)
    std::cout << "best      " << format_time(r.best->median_s) << ", " << fixed(r.best_gflops, 2) << " GFLOP/s (record "
              << r.best->id << ", trial " << r.best->trial << ")\n"
              << "trace     " << r.best->trace << "\n";
  // How the mapping space's budget was shared (arms in the space's order of promise).
  for (std::size_t i = 0; i < r.arms.size(); ++i)
    std::cout << (i == 0 ? "arms      " : "          ") << r.arms[i].trials << " trials, " << r.arms[i].valid
              << " valid, best " << fixed(r.arms[i].best_gflops, 2) << " GFLOP/s: " << r.arms[i].name << "\n";
  if (a.strategy == "predict") print_pick(r, target_name);
  std::cout << "rate      " << fixed(r.candidates_per_minute, 1) << " candidates/min over "
            << format_duration(r.elapsed_s) << "\n";
  print_phases(r);
  std::cout << "database  " << r.db << std::endl;
  if (r.interrupted)
    std::cout << "stopped   by " << signal_name(r.interrupted)
              << ": the batch in flight was abandoned; every trial above is in the database" << std::endl;
}

int run_tune(const TuneArgs& a) {
  if (a.trials < 0) throw Error("--trials must be positive, got " + std::to_string(a.trials));
  if (a.time_s < 0) throw Error("--time must be positive, got " + fixed(a.time_s, 1));
  if (a.threads < 0) throw Error("--threads must be >= 0, got " + std::to_string(a.threads));
  const Op op = op_from_cli(a.spec);
  check_max_memory(op, a.max_memory);
  // An unknown name fails here, before the database is created (rl has its own path in tune()).
  if (a.strategy != "rl") make_strategy(a.strategy);
  // "vta[:CONFIG]" names a simulator config rather than a target file: tune() resolves it.
  const std::string target = is_vta_target_arg(a.target) ? a.target : target_arg(a.target);
  const std::string target_name = tuning_target_name(target);

  TuneOptions o = tune_options(a, target);
  ProgressLine progress;
  o.on_progress = [&progress](const TuneProgress& p) { progress.update(p); };

  const InterruptScope interruptible;
  const TuneResult r = tune(op, o);
  progress.finish();

  if (a.json)
    print_json_summary(op, target_name, a, r);
  else
    print_text_summary(op, target_name, a, r);
  if (r.interrupted) return interrupted_exit_code(r.interrupted);
  if (!r.best)
    throw Error("no valid candidate among " + std::to_string(r.trials_total) + " trials (see `attune history`)");
  return 0;
}

}  // namespace

void add_tune_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<TuneArgs>();
  auto* sub = app.add_subcommand("tune", "Search schedules of SPEC, measuring and recording each in the database");
  sub->add_option("SPEC", args->spec, "op: template call, workload line/name, raw spec or spec file")->required();
  sub->add_option("--target", args->target, "target to tune for")->capture_default_str();
  auto* trials =
      sub->add_option("--trials", args->trials, "total attempts wanted for the task (earlier runs count; default 200)");
  sub->add_option("--time", args->time_s, "stop after this many seconds")->excludes(trials);
  sub->add_option("--strategy", args->strategy, "search strategy (random, evolutionary, xgb, ml2, rl; predict: zero-shot, as --trials 0)")
      ->capture_default_str();
  sub->add_option("--db", args->db, "tuning database")->capture_default_str();
  sub->add_option("--seed", args->seed, "search seed")->capture_default_str();
  sub->add_option("--threads", args->threads, "threads each candidate runs with (0: all cores)")->capture_default_str();
  sub->add_option("--policy", args->policy, "strategy rl: policy file from `attune train-policy` (default: untrained)");
  sub->add_option("--mappings", args->mappings,
                  "also search mappings onto the target's intrinsics, sharing the budget: auto (on for cpu "
                  "targets with strategies evolutionary and random), on, off, only")
      ->check(CLI::IsMember({"auto", "on", "off", "only"}))
      ->capture_default_str();
  sub->add_option("--max-mappings", args->max_mappings,
                  "most promising mappings searched (arms beside the loop-nest one)")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  sub->add_option("--confirm-top", args->confirm_top,
                  "re-measure this many fastest traces at the end, in fresh worker processes; the best is then "
                  "judged by the median of its measurements (0: off)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_option("--confirm-runs", args->confirm_runs, "re-measurements of each of them")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_option("--workers", args->workers,
                  "where candidates are measured: local, or remote (jobs in the database for `attune worker`s)")
      ->check(CLI::IsMember({"local", "remote"}))
      ->capture_default_str();
  sub->add_flag("--json", args->json, "print one JSON object at the end");
  sub->add_option("--max-memory", args->max_memory,
                  "refuse an op whose measurement needs more memory (bytes, K/M/G suffix; default: half of RAM)");
  // --trials 0: no search at all, the cross-task models' pick (as `attune predict`).
  sub->callback([&action, args, trials] {
    if (trials->count() > 0 && args->trials == 0) {
      if (args->strategy != "evolutionary" && args->strategy != "predict")
        throw CLI::ValidationError("--trials 0", "zero-shot takes no --strategy (it is the cross-task models' pick)");
      args->strategy = "predict";
    }
    action = [args] { return run_tune(*args); };
  });
}

void add_predict_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<TuneArgs>();
  args->strategy = "predict";
  auto* sub = app.add_subcommand(
      "predict",
      "Zero-shot: the kernel the target's cross-task models rank first for SPEC, compiled, checked against the "
      "reference and timed once (the same as `attune tune SPEC --trials 0`)");
  sub->add_option("SPEC", args->spec, "op: template call, workload line/name, raw spec or spec file")->required();
  sub->add_option("--target", args->target, "target to tune for")->capture_default_str();
  sub->add_option("--db", args->db, "tuning database: its records of other ops of the target teach the models")
      ->capture_default_str();
  sub->add_option("--seed", args->seed, "seed of the models' candidate pool")->capture_default_str();
  sub->add_option("--threads", args->threads, "threads the kernel runs with (0: all cores)")->capture_default_str();
  sub->add_flag("--json", args->json, "print one JSON object at the end");
  sub->add_option("--max-memory", args->max_memory,
                  "refuse an op whose measurement needs more memory (bytes, K/M/G suffix; default: half of RAM)");
  sub->callback([&action, args] { action = [args] { return run_tune(*args); }; });
}

}  // namespace attune::cli
