// The candidate actions at a nest: the RL action space and the generator of random traces.
#include "schedule/actions.hpp"

#include <map>

#include "schedule/analysis.hpp"

namespace attune {

std::vector<Transform> legal_actions(const LoopNest& nest, const ActionSpace& space) {
  const std::vector<const Node*> loops = sched::all_loops(nest.body);
  std::vector<Transform> candidates;
  for (const Node* l : loops) {
    for (auto f : space.split_factors)
      if (f < l->extent) candidates.push_back(Transform::split(l->var, {(l->extent + f - 1) / f, f}));
    if (l->body.size() == 1 && l->body[0].is_loop()) {
      candidates.push_back(Transform::reorder({l->body[0].var, l->var}));
      candidates.push_back(Transform::fuse(l->var));
    }
    candidates.push_back(Transform::unroll(l->var));
    candidates.push_back(Transform::vectorize(l->var));
    candidates.push_back(Transform::parallel(l->var));
  }
  std::vector<std::string> places{"root"};
  for (const Node* l : loops) places.push_back(l->var);
  if (space.allow_pack)
    for (const auto& t : nest.op.input_tensors())
      for (const auto& at : places) candidates.push_back(Transform::pack(t, at));
  if (space.allow_cache_write)
    for (const Node* l : loops) candidates.push_back(Transform::cache_write(nest.op.output.tensor, l->var));
  for (const auto& t : nest.op.locals) {  // multi-stage ops' intermediates
    candidates.push_back(Transform::compute_inline(t.name));
    for (const Node* l : loops) candidates.push_back(Transform::compute_at(t.name, l->var));
  }

  std::vector<Transform> legal;
  for (auto& c : candidates)
    if (applicable(nest, c)) legal.push_back(std::move(c));
  return legal;
}

Trace random_trace(const Op& op, std::mt19937_64& rng, int max_steps, const ActionSpace& space) {
  Trace trace;
  LoopNest nest = initial_nest(op);
  const int steps = std::uniform_int_distribution<int>(1, std::max(1, max_steps))(rng);
  for (int i = 0; i < steps; ++i) {
    std::map<TransformKind, std::vector<Transform>> by_kind;
    for (auto& a : legal_actions(nest, space)) by_kind[a.kind].push_back(std::move(a));
    if (by_kind.empty()) break;
    auto it = by_kind.begin();
    std::advance(it, std::uniform_int_distribution<std::size_t>(0, by_kind.size() - 1)(rng));
    const auto& options = it->second;
    const Transform& t = options[std::uniform_int_distribution<std::size_t>(0, options.size() - 1)(rng)];
    nest = apply(nest, t);
    trace.steps.push_back(t);
  }
  return trace;
}

}  // namespace attune
