// attune_bench.hpp — what the parts of attune-bench share (attune_bench.cpp says what it does):
//   attune_bench.cpp    the command line, the libraries' checks, the loop over thread counts
//   bench_workloads.cpp the workload files and the groups of their lines
//   bench_run.cpp       one workload at one thread count: tune, verify, time
//   bench_report.cpp    the tables and the geomean lines
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "hw/target.hpp"
#include "workload.hpp"

namespace bench {

struct Args {
  // The contraction suite and the multi-stage ops (issue 23), in that order.
  std::vector<std::string> workloads = {ATTUNE_SOURCE_DIR "/bench/workloads/cpu.txt",
                                        ATTUNE_SOURCE_DIR "/bench/workloads/fused.txt"};
  std::vector<std::string> only;
  int trials = 300;
  double time_s = 120;
  std::string db = "attune-bench.db";
  std::vector<int> threads = {1, 2};
  std::uint64_t seed = 0;
  std::string strategy = "evolutionary";
  std::string mappings = "auto";
  std::string target = "host";  // a CPU target: host/cpu, x86-avx2, x86-avx512 or a JSON file
  int rounds = 25;
  double measure_s = 4;
  bool check_large = false;     // run the reference evaluator even on the largest ops
  bool no_check_large = false;  // check nothing on the largest ops
  std::string json_out;         // --json-out: the results as JSON Lines too (json_out.hpp)
};

// The groups a workload can be in (group_of), in the order of the summary lines.
inline const std::vector<std::string>& group_names() {
  static const std::vector<std::string> g = {"gemm", "conv2d", "other", "fused"};
  return g;
}

// What the machine delivered when a thread count's runs started.
struct Machine {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  double peak_gflops = kNaN;    // fma_peak.hpp
  int bits = 256;               // the FMA probe's vector width
  double bandwidth_gbs = kNaN;  // bandwidth_probe.hpp; NaN when no fused workload runs
};

// One line of the table: one workload at one thread count.
struct Row {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::string name, group;
  std::map<std::string, double> gflops;     // "attune" and each verified baseline: flops / median time
  std::map<std::string, double> pct;        // % of the FMA peak, median of per-round fractions
  std::map<std::string, double> seconds;    // median seconds per call
  std::map<std::string, double> bw_pct;     // fused rows: % of the bandwidth probe, median of per-round fractions
  std::map<std::string, std::string> note;  // "FAIL" (wrong output), "ERR" (could not be set up)
  double ratio = kNaN;          // median over rounds of best baseline time / attune time (> 1: attune faster)
  double peak = kNaN;           // the FMA-peak probe's GFLOP/s during this op's rounds
  double bandwidth = kNaN;      // fused rows: the bandwidth probe's GB/s during this op's rounds
  double bytes = 0;             // inputs + output (op.tensors; a multi-stage op's intermediates are not counted)
  bool memory_bound = false;    // flops per byte below the machine's (peak / bandwidth at start)
  double worker_gflops = kNaN;  // the tuner's figure for the same kernel, timed in its worker
  std::string best;             // the baseline with the lowest median time
  std::string check;            // what the outputs were compared with
  std::string tuned;            // trials recorded and what ended tuning: "300:trials", "41:time", "4:space"
  std::string detail;           // what the baselines ran, where their names do not say it (fused rows)
  int rounds = 0;
};

// bench_workloads.cpp
std::vector<Workload> read_workloads(const std::string& path);
// Every line of every file, names unique across them (--only picks by name).
std::vector<Workload> read_all_workloads(const std::vector<std::string>& paths);
std::string group_of(const Workload& w);

// bench_run.cpp: tunes, verifies and times one workload at `threads` threads (the FMA peak and
// the bandwidth measured at that count are in `m`); sets `failures` when a kernel is wrong or a
// baseline cannot be set up.
Row bench_one(const Workload& w, int threads, const Machine& m, const Args& a, const attune::Target& target,
              bool& failures);

// bench_report.cpp: the contraction groups in one table (GFLOP/s and % of the FMA peak), the
// fused group in another (time per call, share of the bandwidth or of the peak).
void print_table(int threads, const Machine& m, const std::vector<Row>& rows);
std::vector<std::string> group_summaries(int threads, const std::vector<Row>& rows);

}  // namespace bench
