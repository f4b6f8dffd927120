// split_tails: a tile loop emitted as its whole tiles, then the tail.
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

constexpr int kMaxSplitDepth = 2;

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

// How many leading iterations of `loop` need none of the checks below it, when printing those
// apart from the tail is worth it.
std::optional<std::int64_t> whole_tiles(const LoopNest& nest, const Node& loop, const cgen::RangeEnv& env, int depth) {
  if (loop.kind != LoopKind::serial && loop.kind != LoopKind::parallel) return std::nullopt;
  if (loop.lowering.phase || !loop.bindings.empty() || loop.extent < 2 || depth >= kMaxSplitDepth) return std::nullopt;
  // The whole tiles: iterations [0, full) where every bound that this loop's variable can break
  // holds for all values of the other variables.
  std::int64_t full = loop.extent;
  for (const auto& b : bounds_below(nest, loop)) {
    const std::int64_t a = b.expr.coeff(loop.var);
    if (a <= 0) continue;
    AffineExpr rest = b.expr;
    rest.add_term(loop.var, -a);
    const sched::Range r = env.of(rest);
    if (r.lo < 0) continue;                                // reads into padding: checked either way
    if (r.hi + a * (loop.extent - 1) < b.limit) continue;  // never out of bounds
    const std::int64_t last = cgen::floor_div(b.limit - 1 - r.hi, a);
    if (last < 0) continue;  // no iteration is whole for this bound: it stays checked everywhere
    full = std::min(full, last + 1);
  }
  // Worth a second copy of the body only when the tail is the smaller part.
  if (full >= loop.extent || 2 * full < loop.extent) return std::nullopt;
  return full;
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
    const auto full = whole_tiles(nest, n, env, depth);
    if (!full) {
      split(nest, n.body, env, depth);
      continue;
    }
    Node tail = n;
    n.lowering.split_part = tail.lowering.split_part = true;
    n.lowering.end = *full;
    n.lowering.note = " < " + std::to_string(*full) + ": whole tiles, no bounds checks";
    tail.lowering.begin = *full;
    tail.lowering.note = " >= " + std::to_string(*full) + ": the tail";
    if (tail.extent - *full == 1 && tail.kind == LoopKind::parallel) tail.kind = LoopKind::serial;
    env.parts[n.var] = {0, *full - 1};
    split(nest, n.body, env, depth + 1);
    env.parts[n.var] = {*full, n.extent - 1};
    split(nest, tail.body, env, depth + 1);
    env.parts.erase(n.var);
    nodes.insert(nodes.begin() + static_cast<std::ptrdiff_t>(++i), std::move(tail));
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
