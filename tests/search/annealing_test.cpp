// Simulated annealing over a model's scores (search/annealing.hpp): what it returns is fresh,
// admissible and ranked, and with a radius it stays near the configs it started from.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "search/annealing.hpp"

namespace attune {
namespace {

// A score that pulls every walker away from where it starts: the sum of the choice indices.
std::vector<float> far_is_better(const std::vector<Config>& cs) {
  std::vector<float> s;
  for (const auto& c : cs) {
    float x = 0;
    for (int v : c) x += static_cast<float>(v);
    s.push_back(x);
  }
  return s;
}

TEST(Annealing, ReturnsFreshAdmissibleConfigsBestFirst) {
  const auto space = make_cpu_space(op_from_cli("conv2d:N=1,H=14,W=14,C=16,K=32,R=3,S=3,stride=1,pad=1"), 2);
  std::mt19937_64 rng(11);
  const std::set<Config> exclude{space->random_config(rng)};
  const auto out = anneal(*space, far_is_better, 40, exclude, {}, rng);
  ASSERT_FALSE(out.empty());
  const auto s = far_is_better(out);
  EXPECT_TRUE(std::is_sorted(s.rbegin(), s.rend()));
  EXPECT_EQ(std::set<Config>(out.begin(), out.end()).size(), out.size());
  for (const auto& c : out) {
    EXPECT_TRUE(space->admissible(c));
    EXPECT_FALSE(exclude.count(c));
  }
}

TEST(Annealing, WithARadiusStaysThatCloseToItsStarts) {
  const auto space = make_cpu_space(op_from_cli("conv2d:N=1,H=14,W=14,C=16,K=32,R=3,S=3,stride=1,pad=1"), 2);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<Config> starts;
    for (const auto& c : space->seed_configs())
      if (starts.size() < 3) starts.push_back(c);
    ASSERT_FALSE(starts.empty());
    AnnealOptions o;
    o.walkers = 16;
    o.iterations = 20;
    o.radius = 2;
    const auto local = anneal(*space, far_is_better, 200, {}, starts, rng, o);
    ASSERT_FALSE(local.empty());
    for (const auto& c : local) {
      int nearest = 1 << 20;
      for (const auto& st : starts) nearest = std::min(nearest, knobs_apart(c, st));
      EXPECT_LE(nearest, 2);
    }
    // Without one, the same pull takes walkers further.
    o.radius = 0;
    const auto free = anneal(*space, far_is_better, 200, {}, starts, rng, o);
    int furthest = 0;
    for (const auto& c : free) {
      int nearest = 1 << 20;
      for (const auto& st : starts) nearest = std::min(nearest, knobs_apart(c, st));
      furthest = std::max(furthest, nearest);
    }
    EXPECT_GT(furthest, 2);
  }
}

}  // namespace
}  // namespace attune
