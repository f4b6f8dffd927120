// attune-bench's report (attune_bench.hpp): the tables of each thread count (contraction groups,
// then the fused group), then one geomean line per thread count and group.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attune_bench.hpp"
#include "interleave.hpp"

namespace bench {

namespace {

// The tuner's worker and this process timed the same kernel (same C, same flags) more than 25%
// apart: a timing to look into before believing either.
bool kernel_timings_disagree(double worker, double here) {
  return worker > 0 && here > 0 && std::max(worker, here) > 1.25 * std::min(worker, here);
}

std::string cell(const Row& r, const std::string& who) {
  if (auto it = r.note.find(who); it != r.note.end()) return it->second;
  auto it = r.gflops.find(who);
  if (it == r.gflops.end()) return "-";
  char b[64];
  std::snprintf(b, sizeof b, "%.1f (%.0f%%)", it->second, r.pct.at(who));
  return b;
}

// The worker's GFLOP/s for attune's kernel, with "!" when it is more than 25% away from this
// process's figure for the same kernel (the two timings disagree: see the table's legend).
std::string worker_cell(const Row& r) {
  const auto it = r.gflops.find("attune");
  if (std::isnan(r.worker_gflops) || it == r.gflops.end()) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%s", r.worker_gflops,
                kernel_timings_disagree(r.worker_gflops, it->second) ? "!" : "");
  return b;
}

std::string fixed(double v, int digits) {
  if (std::isnan(v)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

// Microseconds per call, or the row's note for `who` ("FAIL", "ERR").
std::string micros(const Row& r, const std::string& who) {
  if (auto it = r.note.find(who); it != r.note.end()) return it->second;
  auto it = r.seconds.find(who);
  return it == r.seconds.end() ? "-" : fixed(it->second * 1e6, 1);
}

// GB/s (% of the bandwidth probe) for a memory-bound row, GFLOP/s (% of the FMA probe) otherwise.
std::string bound_cell(const Row& r, const std::string& who) {
  const auto t = r.seconds.find(who);
  if (t == r.seconds.end()) return "-";
  char b[64];
  if (r.memory_bound)
    std::snprintf(b, sizeof b, "%.1f GB/s (%.0f%%)", r.bytes / t->second / 1e9, r.bw_pct.at(who));
  else
    std::snprintf(b, sizeof b, "%.1f GFLOP/s (%.0f%%)", r.gflops.at(who), r.pct.at(who));
  return b;
}

// The contraction groups: GFLOP/s of every library, as a share of the FMA peak.
void print_flops_table(int threads, const Machine& m, const std::vector<const Row*>& rows) {
  const auto& cols = baseline_columns();
  std::printf(
      "\n== threads=%d  FMA peak %.1f GFLOP/s at start (12 independent %s FMA chains per thread)\n"
      "   cells: GFLOP/s (%% of the peak probe timed in the same rounds); peak: that probe's GFLOP/s;\n"
      "   vs_best: attune / best baseline, median of per-round ratios (> 1: attune faster)\n"
      "   worker: the tuner's GFLOP/s for the same kernel in its worker; '!': over 25%% away from this run's\n",
      threads, m.peak_gflops, m.bits == 512 ? "zmm" : "ymm");
  std::printf("%-14s %-7s %-14s", "name", "group", "attune");
  for (const auto& c : cols) std::printf(" %-15s", c.c_str());
  std::printf(" %-7s %-6s %-15s %-3s %-9s %s\n", "vs_best", "peak", "best", "rds", "worker", "check");
  for (const Row* rp : rows) {
    const Row& r = *rp;
    std::printf("%-14s %-7s %-14s", r.name.c_str(), r.group.c_str(), cell(r, "attune").c_str());
    for (const auto& c : cols) std::printf(" %-15s", cell(r, c).c_str());
    std::printf(" %-7s %-6s %-15s %-3d %-9s %s\n", fixed(r.ratio, 2).c_str(), fixed(r.peak, 1).c_str(),
                r.best.empty() ? "-" : r.best.c_str(), r.rounds, worker_cell(r).c_str(), r.check.c_str());
  }
}

// The fused group: microseconds per call of attune and oneDNN, and how close each comes to
// what bounds it (the bandwidth probe for memory-bound ops, the FMA probe for the others).
void print_fused_table(int threads, const Machine& m, const std::vector<const Row*>& rows) {
  std::printf(
      "\n== threads=%d  group fused: FMA peak %.1f GFLOP/s (%s), memory bandwidth %.1f GB/s at start\n"
      "   (triad over arrays of 8x the last-level cache, %d thread%s, 12 bytes counted per element)\n"
      "   us: microseconds per call, median over rounds; vs_best: oneDNN time / attune time, median of per-round\n"
      "   ratios (> 1: attune faster); attune, oneDNN: for memory-bound ops (flops per byte below peak/bandwidth)\n"
      "   GB/s of inputs + output (%% of the bandwidth probe timed in the same rounds; data that stays in cache\n"
      "   between calls can pass 100%%), for the others GFLOP/s (%% of the FMA probe in the same rounds)\n"
      "   bw, peak: the probes' GB/s and GFLOP/s in this op's rounds; tuned: trials recorded : what ended\n"
      "   tuning (trials: the trial budget, time: the time limit, space: every config tried)\n",
      threads, m.peak_gflops, m.bits == 512 ? "zmm" : "ymm", m.bandwidth_gbs, threads, threads == 1 ? "" : "s");
  std::printf("%-20s %-9s %-9s %-7s %-19s %-19s %-6s %-6s %-3s %-10s %-9s %-10s %s\n", "name", "attune_us", "oneDNN_us",
              "vs_best", "attune", "oneDNN", "bw", "peak", "rds", "tuned", "worker", "check", "oneDNN ran");
  for (const Row* rp : rows) {
    const Row& r = *rp;
    std::printf("%-20s %-9s %-9s %-7s %-19s %-19s %-6s %-6s %-3d %-10s %-9s %-10s %s\n", r.name.c_str(),
                micros(r, "attune").c_str(), micros(r, "oneDNN").c_str(), fixed(r.ratio, 2).c_str(),
                bound_cell(r, "attune").c_str(), bound_cell(r, "oneDNN").c_str(), fixed(r.bandwidth, 1).c_str(),
                fixed(r.peak, 1).c_str(), r.rounds, r.tuned.empty() ? "-" : r.tuned.c_str(), worker_cell(r).c_str(),
                r.check.c_str(), r.detail.empty() ? "-" : r.detail.c_str());
  }
}

}  // namespace

void print_table(int threads, const Machine& m, const std::vector<Row>& rows) {
  std::vector<const Row*> flops, fused;
  for (const auto& r : rows) (r.group == "fused" ? fused : flops).push_back(&r);
  if (!flops.empty()) print_flops_table(threads, m, flops);
  if (!fused.empty()) print_fused_table(threads, m, fused);
  std::fflush(stdout);
}

// One line per group that has rows: the geomean of attune's ratios to the best baseline.
std::vector<std::string> group_summaries(int threads, const std::vector<Row>& rows) {
  std::vector<std::string> summary;
  for (const auto& g : group_names()) {
    std::vector<double> rs;
    bool any = false;
    for (const auto& r : rows)
      if (r.group == g) {
        any = true;
        if (!std::isnan(r.ratio)) rs.push_back(r.ratio);
      }
    if (!any) continue;
    char line[128];
    std::snprintf(line, sizeof line, "threads=%d group=%s geomean_ratio_vs_best=%.2f", threads, g.c_str(), geomean(rs));
    summary.push_back(line);
  }
  return summary;
}

}  // namespace bench
