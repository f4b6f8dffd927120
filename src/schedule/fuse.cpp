// fuse(loop): collapses `loop` and its only child into one loop "loop_child" of extent
// loop.extent * child.extent. The old variables become bindings of the new loop:
// loop = fused / child.extent, child = fused % child.extent.
//
// Preconditions: the loop exists and its body is exactly one loop; neither is vectorized or
// unrolled; the fused extent is at most 2^40 (kMaxLoopExtent); no local buffer is allocated at
// the outer loop; the new name is free.
// Typical use: fuse the outer spatial loops so that `parallel` has enough iterations.
#include "ir/error.hpp"
#include "schedule/analysis.hpp"
#include "schedule/transforms.hpp"

namespace attune::sched {

namespace {
std::string fused_name(const Node& outer) { return outer.var + "_" + outer.body[0].var; }
}  // namespace

Applicability fuse_check(const LoopNest& nest, const Transform& t) {
  const Node* l = nest.find_loop(t.loop);
  if (!l) return Applicability::no("no loop named '" + t.loop + "'");
  if (l->body.size() != 1 || !l->body[0].is_loop())
    return Applicability::no("loop '" + t.loop + "' does not hold exactly one loop");
  const Node& c = l->body[0];
  for (const Node* x : {l, &c})
    if (x->kind == LoopKind::vectorized || x->kind == LoopKind::unrolled)
      return Applicability::no("loop '" + x->var + "' is " + std::string(loop_kind_name(x->kind)));
  if (l->extent > kMaxLoopExtent / c.extent)
    return Applicability::no("fusing '" + l->var + "' and '" + c.var +
                             "' would make a loop of more than 2^40 iterations");
  for (const auto& b : nest.buffers)
    if (b.kind == BufferKind::local && b.alloc_at == l->var)
      return Applicability::no("buffer '" + b.name + "' is allocated at '" + l->var + "'");
  const std::string name = fused_name(*l);
  if (nest.find_loop(name) || extent_of_var(nest, name))
    return Applicability::no("name '" + name + "' is already taken");
  return Applicability::yes();
}

LoopNest fuse_apply(const LoopNest& in, const Transform& t) {
  LoopNest nest = in;
  Slot slot = find_slot(nest, t.loop);
  Node outer = std::move((*slot.body)[slot.index]);
  Node inner = std::move(outer.body[0]);
  const std::string name = outer.var + "_" + inner.var;

  Node fused = Node::make_loop(name, outer.extent * inner.extent, std::move(inner.body));
  // The fused loop starts serial: `parallel` re-checks the dependences of the whole range.
  fused.bindings.push_back({outer.var, AffineExpr::var(name), inner.extent, 0, outer.extent});
  fused.bindings.push_back({inner.var, AffineExpr::var(name), 1, inner.extent, inner.extent});
  // Bindings the two loops had are defined from their variables, which are now bound above.
  for (auto& b : outer.bindings) fused.bindings.push_back(b);
  for (auto& b : inner.bindings) fused.bindings.push_back(b);
  (*slot.body)[slot.index] = std::move(fused);
  for (auto& b : nest.buffers)
    if (b.kind == BufferKind::local && b.alloc_at == inner.var) b.alloc_at = name;
  return nest;
}

}  // namespace attune::sched
