// attune-bench's report (attune_bench.hpp): one table per thread count, then one geomean line
// per thread count and group.
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

}  // namespace

void print_table(int threads, double peak, int bits, const std::vector<Row>& rows) {
  const auto& cols = baseline_columns();
  std::printf(
      "\n== threads=%d  FMA peak %.1f GFLOP/s at start (12 independent %s FMA chains per thread)\n"
      "   cells: GFLOP/s (%% of the peak probe timed in the same rounds); peak: that probe's GFLOP/s;\n"
      "   vs_best: attune / best baseline, median of per-round ratios (> 1: attune faster)\n"
      "   worker: the tuner's GFLOP/s for the same kernel in its worker; '!': over 25%% away from this run's\n",
      threads, peak, bits == 512 ? "zmm" : "ymm");
  std::printf("%-14s %-7s %-14s", "name", "group", "attune");
  for (const auto& c : cols) std::printf(" %-15s", c.c_str());
  std::printf(" %-7s %-6s %-15s %-3s %-9s %s\n", "vs_best", "peak", "best", "rds", "worker", "check");
  for (const auto& r : rows) {
    std::printf("%-14s %-7s %-14s", r.name.c_str(), r.group.c_str(), cell(r, "attune").c_str());
    for (const auto& c : cols) std::printf(" %-15s", cell(r, c).c_str());
    char ratio[32] = "-", pk[32] = "-";
    if (!std::isnan(r.ratio)) std::snprintf(ratio, sizeof ratio, "%.2f", r.ratio);
    if (!std::isnan(r.peak)) std::snprintf(pk, sizeof pk, "%.1f", r.peak);
    std::printf(" %-7s %-6s %-15s %-3d %-9s %s\n", ratio, pk, r.best.empty() ? "-" : r.best.c_str(), r.rounds,
                worker_cell(r).c_str(), r.check.c_str());
  }
  std::fflush(stdout);
}

// One line per group that has rows: the geomean of attune's ratios to the best baseline.
std::vector<std::string> group_summaries(int threads, const std::vector<Row>& rows) {
  std::vector<std::string> summary;
  for (const char* g : {"gemm", "conv2d", "other"}) {
    std::vector<double> rs;
    bool any = false;
    for (const auto& r : rows)
      if (r.group == g) {
        any = true;
        if (!std::isnan(r.ratio)) rs.push_back(r.ratio);
      }
    if (!any) continue;
    char line[128];
    std::snprintf(line, sizeof line, "threads=%d group=%s geomean_ratio_vs_best=%.2f", threads, g, geomean(rs));
    summary.push_back(line);
  }
  return summary;
}

}  // namespace bench
