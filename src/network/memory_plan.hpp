// network/memory_plan.hpp — where each intermediate of a network lives in one arena.
//
// Every value a step writes has a lifetime from that step to the last step that reads it (or
// the end, for graph outputs); values whose lifetimes do not overlap share bytes. Placement is
// greedy, largest first, at the lowest offset that clashes with nothing placed (the classic
// offline heuristic: not optimal, close in practice, decided once before the first run).
#pragma once

#include <cstdint>
#include <vector>

namespace attune::network {

struct Lifetime {
  std::int64_t bytes = 0;
  int first = 0, last = 0;  // step indices, inclusive
};

struct ArenaPlan {
  std::vector<std::int64_t> offsets;  // per lifetime, 64-byte aligned
  std::int64_t total = 0;             // arena bytes
  std::int64_t unshared = 0;          // bytes without sharing, for the report
};

ArenaPlan plan_arena(const std::vector<Lifetime>& buffers);

}  // namespace attune::network
