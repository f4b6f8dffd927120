// interleave.hpp — timing several kernels in the same time window on a noisy shared machine.
//
// BASELINES.md: within one process repeat-to-repeat spread is ~4%, across processes 30-45%
// (another tenant takes the FP units for seconds). So kernels are timed in rounds, A B C A B C
// ..., and compared by the median over rounds of per-round ratios, never by ratios of medians
// measured at different times.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace bench {

struct Contender {
  std::string name;
  std::function<void()> run;
};

struct InterleaveOptions {
  int min_rounds = 5;
  int max_rounds = 25;
  double max_seconds = 4;      // stop after this long once min_rounds are done
  double min_sample_s = 0.01;  // a sample repeats the kernel back to back at least this long
  // Pause before each sample (untimed). With several threads the previous library's idle
  // workers spin for a while after it returns (libgomp, OpenBLAS's pool); the pause lets them
  // go to sleep instead of stealing a core from the next kernel.
  double settle_s = 0;
};

struct InterleaveResult {
  std::vector<std::string> names;
  std::vector<std::vector<double>> per_call_s;  // [contender][round]: seconds per call
  int rounds() const { return per_call_s.empty() ? 0 : int(per_call_s[0].size()); }
  double median_s(std::size_t i) const;
  // Median over rounds of  min_{j in others} t[j][r] / t[i][r]: > 1 when i beats the best of
  // `others` in the typical round. NaN when `others` is empty.
  double median_ratio_vs_best(std::size_t i, const std::vector<std::size_t>& others) const;
  // Median over rounds of  (work_i / t[i][r]) / (work_j / t[j][r]): i's speed as a fraction
  // of j's in the same round (j = the FMA-peak probe gives "fraction of peak").
  double median_speed_fraction(std::size_t i, double work_i, std::size_t j, double work_j) const;
};

// Warms every contender up, sizes its samples, then runs rounds, rotating which contender goes
// first so that none always follows the same neighbour.
InterleaveResult interleave(const std::vector<Contender>& cs, const InterleaveOptions& o);

double median(std::vector<double> v);
double geomean(const std::vector<double>& v);

}  // namespace bench
