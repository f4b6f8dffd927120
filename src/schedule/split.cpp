// split(loop, factors): one loop becomes a chain loop.0 (outermost) ... loop.N-1 (innermost)
// with loop = sum_i loop.i * prod_{j>i} factors[j].
//
// Preconditions: the loop exists and is serial; at least two factors, each in 1..2^40, the
// inner ones multiplying to at most 2^40 and, times the loop variable's largest coefficient in
// the expressions below, to at most kMaxIndexCoefficient (the outer piece's coefficient); the
// outermost factor is the smallest that covers the extent (ceil(extent / product of the inner
// factors)); the new names are free. Tails: when the product exceeds the extent every statement below gets
// the guard `loop < extent` (the code generator emits it as a condition).
#include <algorithm>
#include <numeric>

#include "ir/error.hpp"
#include "schedule/analysis.hpp"
#include "schedule/transforms.hpp"

namespace attune::sched {

namespace {
std::string piece(const std::string& loop, std::size_t i) { return loop + "." + std::to_string(i); }

// The largest |coefficient| of `var` in the expressions it can appear in: the bindings of
// `loop` and of the loops below it, and the accesses and guards of the statements below.
std::int64_t largest_coefficient(const Node& loop, const std::string& var) {
  std::int64_t most = 0;
  auto see = [&](const AffineExpr& e) {
    most = std::max(most, saturating_mul(e.coeff(var), e.coeff(var) < 0 ? -1 : 1));
  };
  for (const auto& b : loop.bindings) see(b.base);
  for (const Node* l : all_loops(loop.body))
    for (const auto& b : l->bindings) see(b.base);
  for_each_stmt(loop.body, [&](const Stmt& s, const std::vector<const Node*>&) {
    for_each_access(s, [&](const Access& a) {
      for (const auto& e : a.index) see(e);
    });
    for (const auto& g : s.guards) see(g.expr);
  });
  return most;
}
}  // namespace

Applicability split_check(const LoopNest& nest, const Transform& t) {
  const Node* l = nest.find_loop(t.loop);
  if (!l) return Applicability::no("no loop named '" + t.loop + "'");
  if (l->kind != LoopKind::serial)
    return Applicability::no("loop '" + t.loop + "' is " + std::string(loop_kind_name(l->kind)) +
                             "; split before annotating");
  if (t.factors.size() < 2) return Applicability::no("split needs at least two factors");
  std::int64_t inner = 1;
  for (std::size_t i = 0; i < t.factors.size(); ++i) {
    if (t.factors[i] < 1 || t.factors[i] > kMaxLoopExtent) return Applicability::no("split factors must be in 1..2^40");
    if (i == 0) continue;
    if (inner > kMaxLoopExtent / t.factors[i])
      return Applicability::no("the inner split factors of '" + t.loop + "' multiply to more than 2^40");
    inner *= t.factors[i];
  }
  if (largest_coefficient(*l, t.loop) > kMaxIndexCoefficient / inner)
    return Applicability::no("splitting '" + t.loop + "' by " + std::to_string(inner) +
                             " would make an index coefficient beyond 2^40");
  const std::int64_t want_outer = (l->extent + inner - 1) / inner;
  if (t.factors[0] != want_outer)
    return Applicability::no("outer factor of '" + t.loop + "' must be " + std::to_string(want_outer) + " (extent " +
                             std::to_string(l->extent) + " / inner " + std::to_string(inner) + ", rounded up)");
  for (std::size_t i = 0; i < t.factors.size(); ++i)
    if (nest.find_loop(piece(t.loop, i)) || extent_of_var(nest, piece(t.loop, i)))
      return Applicability::no("name '" + piece(t.loop, i) + "' is already taken");
  return Applicability::yes();
}

LoopNest split_apply(const LoopNest& in, const Transform& t) {
  LoopNest nest = in;
  Slot slot = find_slot(nest, t.loop);
  Node old = (*slot.body)[slot.index];
  const std::int64_t product =
      std::accumulate(t.factors.begin(), t.factors.end(), std::int64_t{1}, std::multiplies<>());

  // loop = sum piece_i * stride_i
  AffineExpr recon;
  std::int64_t stride = 1;
  for (std::size_t i = t.factors.size(); i-- > 0;) {
    recon.add_term(piece(t.loop, i), stride);
    stride *= t.factors[i];
  }
  std::vector<Node> body = std::move(old.body);
  substitute(body, t.loop, recon);
  for (auto& b : old.bindings) b.base = b.base.substitute(t.loop, recon);
  if (product != old.extent) {
    for_each_stmt_mut(body, [&](Stmt& s) { s.guards.push_back({recon, old.extent}); });
  }

  Node inner = Node::make_loop(piece(t.loop, t.factors.size() - 1), t.factors.back(), std::move(body));
  inner.bindings = old.bindings;  // bindings are evaluated innermost, where every piece is known
  for (std::size_t i = t.factors.size() - 1; i-- > 0;)
    inner = Node::make_loop(piece(t.loop, i), t.factors[i], {std::move(inner)});
  (*slot.body)[slot.index] = std::move(inner);

  for (auto& b : nest.buffers)
    if (b.alloc_at == t.loop) b.alloc_at = piece(t.loop, t.factors.size() - 1);
  return nest;
}

}  // namespace attune::sched
