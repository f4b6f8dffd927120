// Simulated annealing over model scores (see annealing.hpp).
#include "search/annealing.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace attune {

namespace {

Config neighbour(const Space& space, const Config& c, std::mt19937_64& rng) {
  const auto& knobs = space.knobs();
  std::vector<std::size_t> movable;
  for (std::size_t i = 0; i < knobs.size(); ++i)
    if (knobs[i].choices.size() > 1) movable.push_back(i);
  if (movable.empty()) return c;
  for (int tries = 0; tries < 20; ++tries) {
    Config d = c;
    const std::size_t i = movable[std::uniform_int_distribution<std::size_t>(0, movable.size() - 1)(rng)];
    const int k = static_cast<int>(knobs[i].choices.size());
    d[i] = (d[i] + std::uniform_int_distribution<int>(1, k - 1)(rng)) % k;  // a different choice
    if (space.admissible(d)) return d;
  }
  return c;
}

}  // namespace

int knobs_apart(const Config& a, const Config& b) {
  int d = 0;
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) d += a[k] != b[k];
  return d;
}

std::vector<Config> anneal(const Space& space, const ScoreFn& score, int n, const std::set<Config>& exclude,
                           const std::vector<Config>& starts, std::mt19937_64& rng, const AnnealOptions& o) {
  if (n <= 0) return {};
  std::vector<Config> points;
  const bool local = o.radius > 0 && !starts.empty();
  for (std::size_t i = 0; static_cast<int>(points.size()) < o.walkers && (local || i < starts.size()); ++i)
    points.push_back(starts[i % starts.size()]);
  while (static_cast<int>(points.size()) < o.walkers) points.push_back(space.random_config(rng));
  const std::vector<Config> origin = points;

  std::map<Config, float> seen;  // every scored config
  auto score_all = [&](const std::vector<Config>& cs) {
    std::vector<Config> fresh;
    for (const auto& c : cs)
      if (!seen.count(c)) fresh.push_back(c);
    std::sort(fresh.begin(), fresh.end());
    fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
    if (!fresh.empty()) {
      const auto s = score(fresh);
      for (std::size_t i = 0; i < fresh.size(); ++i) seen[fresh[i]] = s[i];
    }
    std::vector<float> out;
    for (const auto& c : cs) out.push_back(seen.at(c));
    return out;
  };

  std::vector<float> cur = score_all(points);
  std::uniform_real_distribution<double> u(0, 1);
  for (int it = 0; it < o.iterations; ++it) {
    const double t = o.t_start + (o.t_end - o.t_start) * (it + 1) / std::max(1, o.iterations);
    std::vector<Config> next;
    for (std::size_t i = 0; i < points.size(); ++i) {
      Config c = neighbour(space, points[i], rng);
      if (local && knobs_apart(c, origin[i]) > o.radius) c = points[i];  // stays inside its radius
      next.push_back(std::move(c));
    }
    const auto ns = score_all(next);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const double gain = ns[i] - cur[i];
      if (gain >= 0 || (t > 0 && u(rng) < std::exp(gain / t))) {
        points[i] = next[i];
        cur[i] = ns[i];
      }
    }
  }

  std::vector<std::pair<float, Config>> ranked;
  for (const auto& [c, s] : seen)
    if (!exclude.count(c)) ranked.emplace_back(s, c);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Config> out;
  for (const auto& [s, c] : ranked) {
    if (static_cast<int>(out.size()) >= n) break;
    out.push_back(c);
  }
  return out;
}

}  // namespace attune
