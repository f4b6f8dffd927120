// split_tails: a tile loop emitted as its whole tiles, then the tail; a loop that reads into
// padding as its head, its interior, then its tail.
//
// A split whose factor does not divide the extent (1024 rows in tiles of 6) leaves guards on
// the tile's statements (m.1 + 6*m.0 < 1024) and bounds checks on its reads. They sit inside
// the reduction loop, one compare and branch per row of the register tile per iteration: a
// 6x16 GEMM micro-kernel ran 12% slower at two threads with them than without. But they fail
// only in the last tile. So a loop whose body has such checks is replaced by two copies: first
// the iterations where every check below it provably holds (an interval analysis over the loops
// around and below, RangeEnv), where the printer then leaves the checks out, then the rest. The
// iterations and their order are unchanged, so this is exact whatever the loop is; a parallel
// loop keeps its whole tiles in parallel and runs a one-tile tail on one thread.
//
// Padding is the same at the other end: a window that starts before the tensor (a pooling or
// convolution window at p*2 + r - 1) checks every read for the first output rows only. Such a
// loop is printed as three copies: the head (iterations where a read may fall below 0), the
// interior (no check at all), the tail (past the end). A 3x3 stride-2 max pool over 112x112 then
// checks its first output row and column and runs the other 55x55 windows without a branch.
//
// An unrolled loop with a loop below it that is not unrolled is first replaced by its copies,
// one per iteration (each a one-iteration unrolled loop): in each copy the variable is a
// constant, and the analysis may find a different whole-tile count in each.
//
// What it costs is code: the body is printed twice. Splits nest at most two deep (a row tail
// and a column tail: four copies of the micro-kernel). Both copies of a scope share its
// per-thread workspaces, which the printer declares at function scope.
#include <algorithm>
#include <optional>

#include "codegen/cpu/range_env.hpp"
#include "codegen/lowering.hpp"
#include "schedule/analysis.hpp"

namespace attune {

namespace {

constexpr int kMaxSplitDepth = sched::kMaxBoundarySplitDepth;

// 0 <= expr < limit: a statement's guard, or a read or write inside its tensor.
struct Bound {
  AffineExpr expr;
  std::int64_t limit = 0;
};

std::vector<Bound> bounds_below(const LoopNest& nest, const Node& loop) {
  std::vector<Bound> bounds;
  auto accesses = [&](const Access& a) {
    const auto* b = nest.buffer(a.tensor);
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
    sched::for_each_access(s, [&](const Access& a) { accesses(a); });
  }
  return bounds;
}

// The iterations [first, full) of a loop that need none of the checks below it.
struct Interior {
  std::int64_t first = 0, full = 0;
};

// The interior of `loop`, when printing it apart from the head and the tail is worth it.
std::optional<Interior> interior(const LoopNest& nest, const Node& loop, const cgen::RangeEnv& env, int depth) {
  if (loop.kind != LoopKind::serial && loop.kind != LoopKind::parallel) return std::nullopt;
  if (loop.lowering.phase || !loop.bindings.empty() || loop.extent < 2 || depth >= kMaxSplitDepth) return std::nullopt;
  // Iterations [first, full) where every bound that this loop's variable can break holds for
  // all values of the other variables: a*i + rest >= 0 from `first` on (padding before the
  // tensor), a*i + rest < limit up to `full` (a tile past its end, padding after it).
  Interior in{0, loop.extent};
  for (const auto& b : bounds_below(nest, loop)) {
    const std::int64_t a = b.expr.coeff(loop.var);
    if (a <= 0) continue;
    AffineExpr rest = b.expr;
    rest.add_term(loop.var, -a);
    const sched::Range r = env.of(rest);
    if (r.lo < 0) in.first = std::max(in.first, -cgen::floor_div(r.lo, a));  // ceil(-lo / a)
    if (r.hi + a * (loop.extent - 1) < b.limit) continue;  // never past the end
    const std::int64_t last = cgen::floor_div(b.limit - 1 - r.hi, a);
    if (last < 0) continue;  // no iteration is whole for this bound: it stays checked everywhere
    in.full = std::min(in.full, last + 1);
  }
  // Worth more copies of the body only when the interior is the larger part.
  if ((in.first == 0 && in.full >= loop.extent) || 2 * (in.full - in.first) < loop.extent) return std::nullopt;
  return in;
}

bool has_rolled_loop(const std::vector<Node>& nodes) {
  return std::any_of(nodes.begin(), nodes.end(), [](const Node& n) {
    return n.is_loop() && (n.kind == LoopKind::serial || n.kind == LoopKind::parallel || has_rolled_loop(n.body));
  });
}

void split(const LoopNest& nest, std::vector<Node>& nodes, cgen::RangeEnv& env, int depth);

// Replaces nodes[i], an unrolled loop, by its one-iteration copies, each split at its constant;
// returns the index of the last copy.
std::size_t split_copies(const LoopNest& nest, std::vector<Node>& nodes, std::size_t i, cgen::RangeEnv& env,
                         int depth) {
  const Node loop = nodes[i];
  std::vector<Node> copies;
  for (std::int64_t k = 0; k < loop.extent; ++k) {
    Node c = loop;
    c.lowering.begin = k;
    c.lowering.end = k + 1;
    env.consts[loop.var] = k;
    split(nest, c.body, env, depth);
    copies.push_back(std::move(c));
  }
  env.consts.erase(loop.var);
  nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i));
  nodes.insert(nodes.begin() + static_cast<std::ptrdiff_t>(i), copies.begin(), copies.end());
  return i + copies.size() - 1;
}

void split(const LoopNest& nest, std::vector<Node>& nodes, cgen::RangeEnv& env, int depth) {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    Node& n = nodes[i];
    if (!n.is_loop()) continue;
    if (n.kind == LoopKind::unrolled && n.extent > 1 && has_rolled_loop(n.body)) {
      i = split_copies(nest, nodes, i, env, depth);
      continue;
    }
    const auto in = interior(nest, n, env, depth);
    if (!in) {
      split(nest, n.body, env, depth);
      continue;
    }
    // The copies in order, each over [begin, end): head, interior, tail (the empty ones left out).
    const Node whole = n;
    std::vector<Node> copies;
    auto copy = [&](std::int64_t begin, std::int64_t end, const std::string& note) {
      if (begin >= end) return;
      Node c = whole;
      c.lowering.split_part = true;
      c.lowering.begin = begin;
      c.lowering.end = end == whole.extent ? -1 : end;  // -1: to the extent
      c.lowering.note = note;
      // A one-iteration head or tail is not worth a parallel region.
      if (end - begin == 1 && c.kind == LoopKind::parallel) c.kind = LoopKind::serial;
      env.parts[n.var] = {begin, end - 1};
      split(nest, c.body, env, depth + 1);
      copies.push_back(std::move(c));
    };
    copy(0, in->first, " < " + std::to_string(in->first) + ": the head, reads checked");
    if (in->first == 0)
      copy(0, in->full, " < " + std::to_string(in->full) + ": whole tiles, no bounds checks");
    else
      copy(in->first, in->full,
           " in [" + std::to_string(in->first) + ", " + std::to_string(in->full) + "): the interior, no checks of its own");
    copy(in->full, whole.extent, " >= " + std::to_string(in->full) + ": the tail");
    env.parts.erase(n.var);
    nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i));
    nodes.insert(nodes.begin() + static_cast<std::ptrdiff_t>(i), copies.begin(), copies.end());
    i += copies.size() - 1;
  }
}

}  // namespace

LoopNest split_tails(LoopNest nest) {
  const LoopNest unsplit = nest;
  cgen::RangeEnv env(unsplit);
  split(unsplit, nest.body, env, 0);
  return nest;
}

}  // namespace attune
