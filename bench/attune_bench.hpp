// attune_bench.hpp — what the parts of attune-bench share (attune_bench.cpp says what it does):
//   attune_bench.cpp    the command line, the libraries' checks, the loop over thread counts
//   bench_workloads.cpp the workload file and the groups of its lines
//   bench_run.cpp       one workload at one thread count: tune, verify, time
//   bench_report.cpp    the table and the geomean lines
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
  std::string workloads = ATTUNE_SOURCE_DIR "/bench/workloads/cpu.txt";
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
};

// One line of the table: one workload at one thread count.
struct Row {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::string name, group;
  std::map<std::string, double> gflops;     // "attune" and each verified baseline: flops / median time
  std::map<std::string, double> pct;        // % of the FMA peak, median of per-round fractions
  std::map<std::string, std::string> note;  // "FAIL" (wrong output), "ERR" (could not be set up)
  double ratio = kNaN;          // median over rounds of best baseline time / attune time (> 1: attune faster)
  double peak = kNaN;           // the FMA-peak probe's GFLOP/s during this op's rounds
  double worker_gflops = kNaN;  // the tuner's figure for the same kernel, timed in its worker
  std::string best;             // the baseline with the lowest median time
  std::string check;            // what the outputs were compared with
  int rounds = 0;
};

// bench_workloads.cpp
std::vector<Workload> read_workloads(const std::string& path);
std::string group_of(const std::string& name);

// bench_run.cpp: tunes, verifies and times one workload at `threads` threads (the FMA peak
// measured at that count is `peak`); sets `failures` when a kernel is wrong or a baseline
// cannot be set up.
Row bench_one(const Workload& w, int threads, double peak, const Args& a, const attune::Target& target, bool& failures);

// bench_report.cpp
void print_table(int threads, double peak, int bits, const std::vector<Row>& rows);
std::vector<std::string> group_summaries(int threads, const std::vector<Row>& rows);

}  // namespace bench
