// interleave.cpp — see interleave.hpp.
#include "interleave.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

namespace bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / double(v.size()));
}

double InterleaveResult::median_s(std::size_t i) const { return median(per_call_s.at(i)); }

double InterleaveResult::median_ratio_vs_best(std::size_t i, const std::vector<std::size_t>& others) const {
  if (others.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> r;
  for (int k = 0; k < rounds(); ++k) {
    double best = std::numeric_limits<double>::infinity();
    for (auto j : others) best = std::min(best, per_call_s[j][k]);
    r.push_back(best / per_call_s[i][k]);
  }
  return median(r);
}

double InterleaveResult::median_speed_fraction(std::size_t i, double work_i, std::size_t j, double work_j) const {
  std::vector<double> f;
  for (int k = 0; k < rounds(); ++k) f.push_back((work_i / per_call_s[i][k]) / (work_j / per_call_s[j][k]));
  return median(f);
}

InterleaveResult interleave(const std::vector<Contender>& cs, const InterleaveOptions& o) {
  InterleaveResult res;
  const std::size_t n = cs.size();
  res.per_call_s.resize(n);
  for (const auto& c : cs) res.names.push_back(c.name);
  auto settle = [&] {
    if (o.settle_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(o.settle_s));
  };

  // Warm-up (page faults, lazy initialisation, caches), then one timed call to size samples.
  std::vector<long> calls(n, 1);
  for (std::size_t i = 0; i < n; ++i) {
    settle();
    cs[i].run();
    cs[i].run();
    const auto t0 = Clock::now();
    cs[i].run();
    const double t = std::max(1e-9, seconds(t0, Clock::now()));
    calls[i] = std::clamp(static_cast<long>(std::ceil(o.min_sample_s / t)), 1L, 100000L);
  }

  const auto start = Clock::now();
  for (int r = 0; r < o.max_rounds; ++r) {
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t i = (j + std::size_t(r)) % n;
      settle();
      const auto t0 = Clock::now();
      for (long c = 0; c < calls[i]; ++c) cs[i].run();
      res.per_call_s[i].push_back(seconds(t0, Clock::now()) / double(calls[i]));
    }
    if (r + 1 >= o.min_rounds && seconds(start, Clock::now()) >= o.max_seconds) break;
  }
  return res;
}

}  // namespace bench
