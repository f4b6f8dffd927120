// The arena plan never lets two buffers that are alive at the same step overlap in memory
// (checked pairwise on random lifetimes), and sharing never costs more than not sharing.
#include <gtest/gtest.h>

#include <random>

#include "network/memory_plan.hpp"

namespace attune::network {
namespace {

TEST(MemoryPlan, LiveBuffersNeverOverlap) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<Lifetime> b(1 + rng() % 30);
    for (auto& l : b) {
      l.bytes = 1 + rng() % 5000;
      l.first = static_cast<int>(rng() % 20);
      l.last = l.first + static_cast<int>(rng() % 6);
    }
    const ArenaPlan p = plan_arena(b);
    ASSERT_EQ(p.offsets.size(), b.size());
    EXPECT_LE(p.total, p.unshared);
    for (std::size_t i = 0; i < b.size(); ++i) {
      EXPECT_EQ(p.offsets[i] % 64, 0);
      EXPECT_LE(p.offsets[i] + b[i].bytes, p.total);
      for (std::size_t j = i + 1; j < b.size(); ++j) {
        const bool same_time = b[i].first <= b[j].last && b[j].first <= b[i].last;
        const bool same_bytes = p.offsets[i] < p.offsets[j] + b[j].bytes && p.offsets[j] < p.offsets[i] + b[i].bytes;
        EXPECT_FALSE(same_time && same_bytes) << "trial " << trial << " buffers " << i << ", " << j;
      }
    }
  }
}

TEST(MemoryPlan, DisjointLifetimesShare) {
  const ArenaPlan p = plan_arena({{1000, 0, 1}, {1000, 2, 3}, {1000, 4, 5}});
  EXPECT_EQ(p.total, 1024);
}

}  // namespace
}  // namespace attune::network
