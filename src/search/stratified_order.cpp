// search/stratified_order.cpp — stratified_order() (stratified_order.hpp).
#include "search/stratified_order.hpp"

#include <map>

namespace attune {

std::vector<std::size_t> stratified_order(const std::vector<std::size_t>& ranked, const std::vector<int>& group) {
  // Each group's members in ranking order; the groups in the order their best appears.
  std::vector<std::vector<std::size_t>> groups;
  std::map<int, std::size_t> slot;
  for (const std::size_t i : ranked) {
    const auto [it, fresh] = slot.emplace(group.at(i), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  std::vector<std::size_t> out;
  out.reserve(ranked.size());
  for (std::size_t round = 0; out.size() < ranked.size(); ++round)
    for (const auto& g : groups)
      if (round < g.size()) out.push_back(g[round]);
  return out;
}

}  // namespace attune
