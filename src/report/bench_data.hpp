// report/bench_data.hpp — the JSON Lines files the benches write (--json-out), read back.
//
// Each line is one JSON object whose "kind" says what it is; the writers are
// bench/attune_bench.cpp, bench/tuning_efficiency.cpp, bench/models/attune_model_bench.py and
// `attune run-model --profile-json`. The kinds the report draws:
//   attune-bench.header        cpu, target, command, commit, trials, time_s
//   attune-bench.machine       threads, peak_gflops, bandwidth_gbs (null when not probed)
//   attune-bench.row           threads, name, group, gflops{lib: x}, seconds{lib: x}, ratio, best
//   tuning-efficiency.header   target, cpu, command, commit, seeds, trials, baseline, candidate
//   tuning-efficiency.strategy workload, strategy, best_ms, invalid, invalid_measured, to_baseline
//   tuning-efficiency.quality  workload, p_pairwise, a_pairwise, p_peak1, a_peak1, v_precision, v_recall
//   tuning-efficiency.summary  target, samples_fraction, invalid_reduction
//   model-bench.header         cpu, command
//   model-bench.row            model, threads, seconds{contender: x}
//   model-profile              model, db, command, tasks[{task, label, weight, seconds, tuned}]
// Other kinds are kept and listed, not drawn. Every value is untrusted: the page escapes the
// strings and skips numbers that are missing or not finite.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attune::report {

struct BenchLine {
  std::string file;
  int line = 0;
  nlohmann::json j;  // an object with a string "kind"
};

struct BenchData {
  std::vector<std::string> files;
  std::vector<BenchLine> lines;
  // The lines of one kind, in file order.
  std::vector<const BenchLine*> of_kind(const std::string& kind) const;
};

// Throws Error with one line naming the file (and line): a missing or unreadable file, a line
// that is not a JSON object with a string "kind". Blank lines are skipped.
BenchData read_bench_files(const std::vector<std::string>& paths);

// Helpers for reading untrusted lines: a finite number or NaN; a string or "".
double number_or_nan(const nlohmann::json& j, const char* key);
std::string string_or_empty(const nlohmann::json& j, const char* key);

}  // namespace attune::report
