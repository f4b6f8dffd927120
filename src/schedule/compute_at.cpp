// compute_at(tensor, at): computes an intermediate of a multi-stage op inside loop `at` of the
// stage that reads it, each iteration computing the part that iteration reads (Halide's
// compute_at), so that it is used while still in cache instead of going through memory.
//
// The intermediate's nests (its init, compute and mean nests) move from the top level into
// `at`'s body. A dimension d of the intermediate is bound when every read of it below `at` uses
// the same index there, made of variables of `at` and the loops around it: the producer's
// loop over d is then removed and its variable replaced by that index. Other dimensions keep
// their loops (computed whole in each iteration). Preconditions, each refused with its reason:
// the tensor is an intermediate computed by nests of its own; `at` belongs to a later nest;
// every read of the tensor is below `at`; the loops from the root to `at` are serial; a bound
// index stays inside the tensor; a bound dimension is written through one plain loop variable
// (not split or fused) in each producer nest; and inside `at`'s body the producer can go after
// whatever writes what it reads and before whatever reads it.
#include <algorithm>
#include <optional>

#include "ir/error.hpp"
#include "schedule/analysis.hpp"
#include "schedule/stage_fusion.hpp"
#include "schedule/transforms.hpp"

namespace attune::sched {

namespace {

struct Plan {
  std::string why;
  std::vector<std::size_t> producers;            // positions in nest.body
  std::vector<std::optional<AffineExpr>> bound;  // per dimension of the tensor
  std::size_t insert_at = 0;                     // position in `at`'s body
};

Plan refused(std::string why) {
  Plan p;
  p.why = std::move(why);
  return p;
}

// The index every read of `tensor` below `loop` uses in each dimension, when one is shared and
// made of `outer` variables only.
std::vector<std::optional<AffineExpr>> shared_indices(const Node& loop, const std::string& tensor, std::size_t rank,
                                                      const std::vector<std::string>& outer) {
  std::vector<std::optional<AffineExpr>> idx(rank);
  std::vector<bool> differs(rank, false);
  for_each_stmt(loop.body, [&](const Stmt& s, const std::vector<const Node*>&) {
    for_each_access(s, [&](const Access& a) {
      if (&a == &s.dst || a.tensor != tensor) return;
      for (std::size_t d = 0; d < rank; ++d) {
        if (!idx[d])
          idx[d] = a.index[d];
        else if (!(*idx[d] == a.index[d]))
          differs[d] = true;
      }
    });
  });
  for (std::size_t d = 0; d < rank; ++d) {
    if (!idx[d]) continue;
    bool only_outer = idx[d]->divisor == 1;
    for (const auto& [v, c] : idx[d]->terms)
      only_outer = only_outer && std::find(outer.begin(), outer.end(), v) != outer.end();
    if (differs[d] || !only_outer) idx[d].reset();
  }
  return idx;
}

// The plain loop variable through which every statement of `n` writes dimension d of `tensor`.
std::optional<std::string> writing_var(const Node& n, const std::string& tensor, std::size_t d) {
  std::optional<std::string> var;
  bool ok = true;
  for_each_stmt({n}, [&](const Stmt& s, const std::vector<const Node*>& loops) {
    if (s.dst.tensor != tensor) {
      ok = false;
      return;
    }
    auto v = s.dst.index[d].as_single_var();
    for (const auto& g : s.guards) ok = ok && !(v && g.expr.uses(*v));  // a split tail's guard
    const bool plain = v && std::any_of(loops.begin(), loops.end(), [&](const Node* l) {
                         return l->var == *v && l->bindings.empty() && l->kind == LoopKind::serial;
                       });
    if (!plain || (var && *var != *v)) ok = false;
    if (ok) var = v;
  });
  return ok ? var : std::nullopt;
}

Plan plan_of(const LoopNest& nest, const Transform& t) {
  Plan p;
  if (auto why = not_an_intermediate(nest, t.tensor); !why.empty()) return refused("compute_at: " + why);
  p.producers = producer_nests(nest, t.tensor, p.why);
  if (!p.why.empty()) return p;
  const Node* at = nest.find_loop(t.at);
  if (!at) return refused("no loop named '" + t.at + "'");
  const auto path = nest.path_to(t.at);
  std::size_t root = 0;
  while (root < nest.body.size() && !(nest.body[root].is_loop() && nest.body[root].var == path.front())) ++root;
  if (root <= p.producers.back())
    return refused("loop '" + t.at + "' does not come after the nests that compute '" + t.tensor + "'");
  for (std::size_t i = 0; i < nest.body.size(); ++i) {
    if (i == root || std::find(p.producers.begin(), p.producers.end(), i) != p.producers.end()) continue;
    if (reads(nest.body[i], t.tensor)) return refused("'" + t.tensor + "' is also read outside loop '" + t.at + "'");
  }
  std::vector<std::string> outer;
  for (const auto& name : path) {
    const Node* l = nest.find_loop(name);
    if (l->kind != LoopKind::serial)
      return refused("compute_at inside " + std::string(loop_kind_name(l->kind)) + " loop '" + name + "'");
    for (const auto& v : iteration_vars(*l)) outer.push_back(v);
  }
  // Reads in the consumer's nest but outside `at` (its siblings in enclosing loops).
  bool outside = false;
  {
    int inside = 0, total = 0;
    for_each_stmt(at->body, [&](const Stmt& s, const std::vector<const Node*>&) {
      for_each_access(s, [&](const Access& a) { inside += &a != &s.dst && a.tensor == t.tensor; });
    });
    for_each_stmt({nest.body[root]}, [&](const Stmt& s, const std::vector<const Node*>&) {
      for_each_access(s, [&](const Access& a) { total += &a != &s.dst && a.tensor == t.tensor; });
    });
    outside = inside != total;
    if (inside == 0) return refused("no statement below loop '" + t.at + "' reads '" + t.tensor + "'");
  }
  if (outside) return refused("'" + t.tensor + "' is also read outside loop '" + t.at + "'");

  const Tensor* tensor = nest.op.find_tensor(t.tensor);
  p.bound = shared_indices(*at, t.tensor, tensor->shape.size(), outer);
  for (std::size_t d = 0; d < p.bound.size(); ++d) {
    if (!p.bound[d]) continue;
    const Range r = range_of(nest, *p.bound[d]);
    if (r.lo < 0 || r.hi >= tensor->shape[d])
      return refused("the index " + p.bound[d]->str() + " of '" + t.tensor + "' below '" + t.at +
                     "' may leave the tensor (where its reads are zero)");
    for (std::size_t i : p.producers)
      if (!writing_var(nest.body[i], t.tensor, d))
        return refused("dimension " + std::to_string(d) + " of '" + t.tensor +
                       "' is not written through one plain loop (split, fused or annotated)");
  }
  // After whatever writes a tensor the producer reads, before whatever reads the tensor.
  std::vector<std::string> inputs;
  for (std::size_t i : p.producers)
    for_each_stmt({nest.body[i]}, [&](const Stmt& s, const std::vector<const Node*>&) {
      for_each_access(s, [&](const Access& a) {
        if (&a != &s.dst) inputs.push_back(a.tensor);
      });
    });
  std::size_t after = 0, before = at->body.size();
  for (std::size_t i = 0; i < at->body.size(); ++i) {
    for (const auto& in : inputs)
      if (writes(at->body[i], in)) after = i + 1;
    if (reads(at->body[i], t.tensor)) before = std::min(before, i);
  }
  if (after > before)
    return refused("inside '" + t.at + "', '" + t.tensor + "' would have to be computed after what reads it");
  p.insert_at = after;
  return p;
}

}  // namespace

Applicability compute_at_check(const LoopNest& nest, const Transform& t) {
  const Plan p = plan_of(nest, t);
  return p.why.empty() ? Applicability::yes() : Applicability::no(p.why);
}

LoopNest compute_at_apply(const LoopNest& in, const Transform& t) {
  const Plan p = plan_of(in, t);
  ATTUNE_CHECK(p.why.empty(), "compute_at_apply: " + p.why);
  LoopNest nest = in;
  std::vector<Node> moved;
  for (std::size_t i : p.producers) {
    std::vector<Node> body{nest.body[i]};
    for (std::size_t d = 0; d < p.bound.size(); ++d) {
      if (!p.bound[d]) continue;
      const std::string v = *writing_var(body[0], t.tensor, d);
      Slot s = find_slot(body, v);
      ATTUNE_CHECK(s.body, "compute_at_apply: lost loop " + v);
      std::vector<Node> inner = std::move((*s.body)[s.index].body);
      s.body->erase(s.body->begin() + static_cast<std::ptrdiff_t>(s.index));
      s.body->insert(s.body->begin() + static_cast<std::ptrdiff_t>(s.index), inner.begin(), inner.end());
      substitute(body, v, *p.bound[d]);
    }
    moved.insert(moved.end(), body.begin(), body.end());
  }
  for (auto it = p.producers.rbegin(); it != p.producers.rend(); ++it)
    nest.body.erase(nest.body.begin() + static_cast<std::ptrdiff_t>(*it));
  Node* at = nest.find_loop(t.at);
  at->body.insert(at->body.begin() + static_cast<std::ptrdiff_t>(p.insert_at), moved.begin(), moved.end());
  return nest;
}

}  // namespace attune::sched
