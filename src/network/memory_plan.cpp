// memory_plan.cpp — greedy arena placement (memory_plan.hpp).
#include "network/memory_plan.hpp"

#include <algorithm>
#include <numeric>

#include "ir/aligned.hpp"

namespace attune::network {

ArenaPlan plan_arena(const std::vector<Lifetime>& buffers) {
  ArenaPlan p;
  p.offsets.assign(buffers.size(), 0);
  std::vector<std::size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return buffers[a].bytes > buffers[b].bytes; });
  std::vector<std::size_t> placed;
  for (std::size_t b : order) {
    const std::int64_t size = aligned_size(buffers[b].bytes);
    p.unshared += size;
    // Candidate offsets: 0 and the end of every placed buffer alive at the same time.
    std::vector<std::pair<std::int64_t, std::int64_t>> busy;  // [begin, end) of overlapping lifetimes
    for (std::size_t q : placed)
      if (buffers[q].first <= buffers[b].last && buffers[b].first <= buffers[q].last)
        busy.emplace_back(p.offsets[q], p.offsets[q] + aligned_size(buffers[q].bytes));
    std::sort(busy.begin(), busy.end());
    std::int64_t at = 0;
    for (const auto& [lo, hi] : busy) {
      if (at + size <= lo) break;
      at = std::max(at, hi);
    }
    p.offsets[b] = at;
    p.total = std::max(p.total, at + size);
    placed.push_back(b);
  }
  return p;
}

}  // namespace attune::network
