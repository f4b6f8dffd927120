// Split tails: a tile loop emitted as its whole tiles, then the tail.
//
// A split whose factor does not divide the extent (1024 rows in tiles of 6) leaves guards on
// the tile's statements (m.1 + 6*m.0 < 1024) and bounds checks on its reads. They sit inside
// the reduction loop, one compare and branch per row of the register tile per iteration: a
// 6x16 GEMM micro-kernel ran 12% slower at two threads with them than without. But they fail
// only in the last tile. So a loop whose body has such checks is emitted twice: first over the
// iterations where every check below it provably holds (a range analysis over the loops
// around and below), with the checks left out, then over the rest, with them. The iterations
// and their order are unchanged, so this is exact whatever the loop is; a parallel loop keeps
// its whole tiles in parallel and runs a one-tile tail on one thread.
//
// What it costs is code: the body is emitted twice. Splits nest at most two deep (a row tail
// and a column tail: four copies of the micro-kernel). Both copies of a scope share its
// per-thread workspaces, which are declared at function scope.
#include <algorithm>

#include "codegen/cpu/c_emitter.hpp"

namespace attune::cgen {

namespace {

constexpr int kMaxSplitDepth = 2;

// 0 <= expr < limit: a statement's guard, or a read or write inside its tensor.
struct Bound {
  AffineExpr expr;
  std::int64_t limit = 0;
};

std::int64_t floor_div(std::int64_t a, std::int64_t d) {
  std::int64_t q = a / d;
  if ((a % d != 0) && ((a < 0) != (d < 0))) --q;
  return q;
}

}  // namespace

sched::Range CEmitter::range(const AffineExpr& e) const {
  sched::Range r{e.constant, e.constant};
  for (const auto& [v, c] : e.terms) {
    std::int64_t lo = 0, hi = 0;
    if (auto k = consts.find(v); k != consts.end()) {
      lo = hi = k->second;
    } else if (auto s = split_ranges_.find(v); s != split_ranges_.end()) {
      lo = s->second.lo, hi = s->second.hi;
    } else if (auto x = extents_.find(v); x != extents_.end()) {
      hi = std::max<std::int64_t>(x->second - 1, 0);
    }
    r.lo += c > 0 ? c * lo : c * hi;
    r.hi += c > 0 ? c * hi : c * lo;
  }
  if (e.divisor != 1) r = {floor_div(r.lo, e.divisor), floor_div(r.hi, e.divisor)};
  return r;
}

std::optional<std::int64_t> CEmitter::tail_split(const Node& loop) const {
  if (loop.kind != LoopKind::serial && loop.kind != LoopKind::parallel) return std::nullopt;
  if (!loop.bindings.empty() || loop.extent < 2 || split_depth_ >= kMaxSplitDepth) return std::nullopt;

  std::vector<Bound> bounds;
  auto accesses = [&](const Access& a) {
    const auto* b = nest_.buffer(a.tensor);
    if (!b || b->kind == BufferKind::local) return;  // never checked
    for (std::size_t d = 0; d < a.index.size(); ++d)
      if (a.index[d].divisor == 1) bounds.push_back({a.index[d], b->shape[d]});
  };
  std::vector<const Node*> stack{&loop};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (n->is_loop()) {
      for (const auto& c : n->body) stack.push_back(&c);
      continue;
    }
    const Stmt& s = n->stmt;
    for (const auto& g : s.guards) bounds.push_back({g.expr, g.bound});
    accesses(s.dst);
    for (const auto& a : s.srcs) accesses(a);
    if (s.bias) accesses(*s.bias);
  }

  // The whole tiles: iterations [0, full) where every bound that this loop's variable can break
  // holds for all values of the other variables.
  std::int64_t full = loop.extent;
  for (const auto& b : bounds) {
    const std::int64_t a = b.expr.coeff(loop.var);
    if (a <= 0) continue;
    AffineExpr rest = b.expr;
    rest.add_term(loop.var, -a);
    const sched::Range r = range(rest);
    if (r.lo < 0) continue;                                // reads into padding: checked either way
    if (r.hi + a * (loop.extent - 1) < b.limit) continue;  // never out of bounds
    const std::int64_t last = floor_div(b.limit - 1 - r.hi, a);
    if (last < 0) continue;  // no iteration is whole for this bound: it stays checked everywhere
    full = std::min(full, last + 1);
  }
  // Worth a second copy of the body only when the tail is the smaller part.
  if (full >= loop.extent || 2 * full < loop.extent) return std::nullopt;
  return full;
}

}  // namespace attune::cgen
