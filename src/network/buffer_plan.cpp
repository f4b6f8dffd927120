// buffer_plan.cpp — arena, weights and inputs of a planned network (buffer_plan.hpp).
#include "network/buffer_plan.hpp"

#include <algorithm>

#include "graph/layout.hpp"

namespace attune::network {

BufferPlan plan_buffers(const graph::ModelPlan& plan) {
  const auto& g = plan.graph;
  auto root = [&](int v) { return plan.storage[v]; };
  BufferPlan b;
  const int end = static_cast<int>(plan.steps.size());
  std::map<int, Lifetime> life;  // root -> lifetime, for values steps write
  for (int s = 0; s < end; ++s) {
    const int out = root(plan.steps[s].args.back());
    life[out] = {graph::element_count(g.values[out].shape) * 4, s, s};
  }
  for (int s = 0; s < end; ++s)
    for (int v : plan.steps[s].args)
      if (auto it = life.find(root(v)); it != life.end()) it->second.last = std::max(it->second.last, s);
  for (int v : g.outputs)
    if (auto it = life.find(root(v)); it != life.end()) it->second.last = end;
  std::vector<int> roots;
  std::vector<Lifetime> lifetimes;
  for (const auto& [r, l] : life) roots.push_back(r), lifetimes.push_back(l);
  b.arena = plan_arena(lifetimes);
  for (std::size_t k = 0; k < roots.size(); ++k) b.places[roots[k]] = {BufferPlan::Where::arena, b.arena.offsets[k] / 4};
  for (std::size_t k = 0; k < g.inputs.size(); ++k)
    b.places[root(g.inputs[k])] = {BufferPlan::Where::input, static_cast<std::int64_t>(k)};
  auto add_constant = [&](int v) {
    const int r = root(v);
    if (b.places.count(r) || !g.values[r].constant) return;
    b.places[r] = {BufferPlan::Where::weights, static_cast<std::int64_t>(b.weights.size())};
    const auto data = graph::physical_floats(*g.values[r].constant, g.values[r].layout);  // pre-packed once
    b.weights.insert(b.weights.end(), data.begin(), data.end());
    b.weights.resize(aligned_size(static_cast<std::int64_t>(b.weights.size()) * 4) / 4, 0.0f);  // next one aligned
  };
  for (const auto& step : plan.steps)
    for (int v : step.args) add_constant(v);
  for (int v : g.outputs) add_constant(v);
  return b;
}

}  // namespace attune::network
