// unroll(loop), vectorize(loop), parallel(loop): annotations the code generator honours.
//
// unroll:    serial loop, extent <= 64, and at most 512 statement copies once every unrolled
//            loop around it is expanded (keeps generated code small enough to compile fast).
//            And at most 8192 statements as the compiler sees them (compiled_size()):
//            gcc -O3 peels short loops inside each copy, and the code generator prints a loop
//            that reads into padding three times (head, interior, tail), around the unrolled loop
//            or inside it. rn50_c5_3x3 with c
//            split 64x8 and both parts unrolled is 512 copies, within the first limit, but
//            41472 statements to gcc, which ran past its two-minute limit. Of 6200 random legal
//            traces of the cpu.txt ops 27 are over 8192 (the smallest six took gcc 4-12 s, the
//            next 106 s); most of the largest under it took 2-19 s. Two traces of the C-text
//            fixture were over it too (12 s and 59 s); the estimate is coarse, the limit is for
//            the tail. Both limits hold for every unrolled loop after every later step too
//            (unrolled_code_check(), which applicable() runs after the steps that move or add
//            code): a pack, cache_write or split placed inside an unrolled loop later is copied
//            with it (before that check, and before loops split inside the region counted, such
//            traces took gcc 49-71 s).
// vectorize: serial loop with only statements in its body (innermost), extent <= 64, and no
//            carried dependence: every statement must write a different element per iteration
//            (so a loop that carries a contraction's reduction is refused). One exception: a
//            loop around a single compute statement of a multi-stage op that reduces over it
//            (sum, max, min) — codegen keeps one accumulator per lane and combines them after
//            the loop (`omp simd reduction`), which only reorders the reduction.
// parallel:  serial loop, not inside or around another parallel loop nor inside an unrolled one
//            (each copy would be a parallel region of its own), no carried dependence:
//            each write to a buffer that outlives one iteration must separate the iterations.
#include <algorithm>

#include "ir/error.hpp"
#include "schedule/analysis.hpp"
#include "schedule/transforms.hpp"

namespace attune::sched {

namespace {

constexpr std::int64_t kMaxUnrollExtent = 64;
constexpr std::int64_t kMaxUnrolledCopies = 512;
constexpr std::int64_t kMaxCompiledStatements = 8192;
constexpr std::int64_t kCompilerPeelsUpTo = 16;     // gcc's max-completely-peel-times
constexpr std::int64_t kCompilerPeelsAtMost = 64;   // statements: ~ its max-completely-peeled-insns (200)
constexpr int kBoundaryCopies = 3;                  // head, interior, tail (codegen/cpu/pass_split_tails.cpp)

Applicability must_be_serial(const Node* l, const std::string& name) {
  if (!l) return Applicability::no("no loop named '" + name + "'");
  if (l->kind != LoopKind::serial)
    return Applicability::no("loop '" + name + "' is already " + std::string(loop_kind_name(l->kind)));
  return Applicability::yes();
}

// Why a write under `loop` to `dst` would be shared between iterations; empty when it is not.
std::string carried_dependence(const LoopNest& nest, const Node& loop) {
  std::string why;
  // Buffers allocated inside the loop are private to each iteration.
  const auto inner_vars = vars_defined_in(loop.body);
  auto private_buffer = [&](const std::string& buf) {
    const auto* b = nest.buffer(buf);
    if (!b || b->kind != BufferKind::local) return false;
    if (b->alloc_at == loop.var) return true;
    for (const auto& v : inner_vars)
      if (v == b->alloc_at) return true;
    return false;
  };
  for_each_stmt(loop.body, [&](const Stmt& s, const std::vector<const Node*>&) {
    if (!why.empty() || private_buffer(s.dst.tensor)) return;
    if (!write_separates_iterations(nest, loop, s.dst.index)) {
      const bool reduces = s.kind == StmtKind::update || (s.kind == StmtKind::compute && s.reduce != Reduce::none);
      why = "loop '" + loop.var + "' carries a dependence: every iteration " +
            (reduces ? "accumulates into " : "writes ") + s.dst.str() + (reduces ? " (a reduction)" : "");
    }
  });
  return why;
}

// A loop whose whole body is one compute statement reducing over the loop's variable.
bool reduces_over(const Node& loop) {
  if (loop.body.size() != 1 || loop.body[0].is_loop()) return false;
  const Stmt& s = loop.body[0].stmt;
  if (s.kind != StmtKind::compute || s.reduce == Reduce::none) return false;
  for (const auto& e : s.dst.index)
    if (e.uses(loop.var)) return false;
  return true;
}

bool contains_kind(const std::vector<Node>& nodes, LoopKind k) {
  for (const auto& n : nodes)
    if (n.is_loop() && (n.kind == k || contains_kind(n.body, k))) return true;
  return false;
}

std::int64_t stmt_count(const std::vector<Node>& nodes) {
  std::int64_t c = 0;
  for (const auto& n : nodes) c += n.is_loop() ? (n.kind == LoopKind::unrolled ? n.extent : 1) * stmt_count(n.body) : 1;
  return c;
}

// Whether the code generator prints `loop` as head, interior and tail (pass_split_tails.cpp):
// a serial or parallel loop of two or more iterations, not fused, whose variables reach an
// access under `region` that may fall outside its tensor.
bool splits_at_boundary(const LoopNest& nest, const Node& loop, const std::vector<Node>& region) {
  if ((loop.kind != LoopKind::serial && loop.kind != LoopKind::parallel) || !loop.bindings.empty() || loop.extent < 2)
    return false;
  const auto vars = iteration_vars(loop);
  bool checked = false;
  for_each_stmt(region, [&](const Stmt& s, const std::vector<const Node*>&) {
    for_each_access(s, [&](const Access& a) {
      const auto* b = nest.buffer(a.tensor);
      if (checked || !b || b->kind == BufferKind::local) return;
      for (std::size_t d = 0; d < a.index.size() && d < b->shape.size(); ++d) {
        const AffineExpr& e = a.index[d];
        if (e.divisor != 1 || std::none_of(vars.begin(), vars.end(), [&](const auto& v) { return e.uses(v); }))
          continue;
        const Range r = range_of(nest, e);
        if (r.lo < 0 || r.hi >= b->shape[d]) checked = true;
      }
    });
  });
  return checked;
}

// Statements the compiler sees for `nodes`, below `splits` boundary splits: unrolled loops
// expanded, and a serial loop of at most kCompilerPeelsUpTo iterations expanded too when the
// result stays small (gcc peels it completely); a vectorized loop is one vector statement per
// statement. A loop the code generator splits at a boundary (while fewer than
// kMaxBoundarySplitDepth splits are around it) is printed kBoundaryCopies times, unless gcc peels
// it (its copies then share its iterations). Saturates.
std::int64_t compiled_size(const LoopNest& nest, const std::vector<Node>& nodes, int splits) {
  std::int64_t c = 0;
  for (const auto& n : nodes) {
    if (!n.is_loop()) {
      c = saturating_add(c, 1);
      continue;
    }
    const bool split = splits < kMaxBoundarySplitDepth && splits_at_boundary(nest, n, n.body);
    const std::int64_t body = compiled_size(nest, n.body, splits + split);
    const std::int64_t all = saturating_mul(n.extent, body);
    const bool peeled = n.kind == LoopKind::serial && n.extent <= kCompilerPeelsUpTo && all <= kCompilerPeelsAtMost;
    c = saturating_add(
        c, n.kind == LoopKind::unrolled || peeled ? all : saturating_mul(body, split ? kBoundaryCopies : 1));
  }
  return c;
}

// How many boundary splits of the code generator are around `loop`: loops around it that
// splits_at_boundary() for its body (at most kMaxBoundarySplitDepth nest).
int boundary_splits_around(const LoopNest& nest, const Node& loop) {
  int split = 0;
  for (const auto& name : nest.path_to(loop.var)) {
    const Node* p = nest.find_loop(name);
    if (p != &loop) split += splits_at_boundary(nest, *p, loop.body);
  }
  return std::min(split, kMaxBoundarySplitDepth);
}

// Unroll's two limits on loop `l`, unrolled, as `nest` stands. `what` opens the reason:
// "unrolling 'x' would" when unroll asks, "unrolled loop 'x' would then" after a later step.
Applicability unrolled_size_check(const LoopNest& nest, const Node& l, const std::string& what) {
  // Copies after expansion: this loop and every unrolled loop around it.
  std::int64_t unrolled = l.extent;
  for (const auto& name : nest.path_to(l.var)) {
    const Node* p = nest.find_loop(name);
    if (p != &l && p->kind == LoopKind::unrolled) unrolled = saturating_mul(unrolled, p->extent);
  }
  const std::int64_t copies = saturating_mul(unrolled, stmt_count(l.body));
  if (copies > kMaxUnrolledCopies)
    return Applicability::no(what + " emit " + std::to_string(copies) + " statements (limit " +
                             std::to_string(kMaxUnrolledCopies) + ")");
  // The same region as the compiler will see it: printed once per boundary copy around it.
  const int splits = boundary_splits_around(nest, l);
  std::int64_t printed = 1;
  for (int i = 0; i < splits; ++i) printed *= kBoundaryCopies;
  const std::int64_t body = compiled_size(nest, l.body, splits);
  const std::int64_t compiled = saturating_mul(saturating_mul(unrolled, body), printed);
  if (compiled > kMaxCompiledStatements)
    return Applicability::no(what + " hand the compiler about " + std::to_string(compiled) + " statements (" +
                             std::to_string(unrolled) + " copies of a body it expands to " + std::to_string(body) +
                             (printed > 1 ? ", printed " + std::to_string(printed) + " times for the boundary" : "") +
                             "; limit " + std::to_string(kMaxCompiledStatements) + ")");
  return Applicability::yes();
}

}  // namespace

Applicability unroll_check(const LoopNest& nest, const Transform& t) {
  const Node* l = nest.find_loop(t.loop);
  if (auto a = must_be_serial(l, t.loop); !a) return a;
  if (l->extent > kMaxUnrollExtent)
    return Applicability::no("loop '" + t.loop + "' has extent " + std::to_string(l->extent) + " > " +
                             std::to_string(kMaxUnrollExtent) + "; split it first");
  if (contains_kind(l->body, LoopKind::parallel))
    return Applicability::no("loop '" + t.loop + "' contains a parallel loop");
  if (auto a = unrolled_size_check(nest, *l, "unrolling '" + t.loop + "' would"); !a) return a;
  // The unrolled loops inside it are now copied too.
  LoopNest after = nest;
  after.find_loop(t.loop)->kind = LoopKind::unrolled;
  return unrolled_code_check(after);
}

bool has_unrolled_loop(const LoopNest& nest) { return contains_kind(nest.body, LoopKind::unrolled); }

Applicability unrolled_code_check(const LoopNest& after) {
  for (const Node* l : all_loops(after.body))
    if (l->kind == LoopKind::unrolled)
      if (auto a = unrolled_size_check(after, *l, "unrolled loop '" + l->var + "' would then"); !a) return a;
  return Applicability::yes();
}

Applicability vectorize_check(const LoopNest& nest, const Transform& t) {
  const Node* l = nest.find_loop(t.loop);
  if (auto a = must_be_serial(l, t.loop); !a) return a;
  for (const auto& n : l->body)
    if (n.is_loop()) return Applicability::no("loop '" + t.loop + "' is not innermost");
  if (!l->bindings.empty()) return Applicability::no("loop '" + t.loop + "' is a fused loop");
  if (l->extent > kMaxUnrollExtent)
    return Applicability::no("loop '" + t.loop + "' has extent " + std::to_string(l->extent) + " > " +
                             std::to_string(kMaxUnrollExtent) + "; split it first");
  if (reduces_over(*l)) return Applicability::yes();
  if (auto why = carried_dependence(nest, *l); !why.empty()) return Applicability::no(why);
  return Applicability::yes();
}

Applicability parallel_check(const LoopNest& nest, const Transform& t) {
  const Node* l = nest.find_loop(t.loop);
  if (auto a = must_be_serial(l, t.loop); !a) return a;
  for (const auto& name : nest.path_to(t.loop)) {
    const Node* p = nest.find_loop(name);
    if (p != l && (p->kind == LoopKind::parallel || p->kind == LoopKind::vectorized || p->kind == LoopKind::unrolled))
      return Applicability::no("loop '" + t.loop + "' is inside " + std::string(loop_kind_name(p->kind)) + " loop '" +
                               name + "'");
  }
  if (contains_kind(l->body, LoopKind::parallel))
    return Applicability::no("loop '" + t.loop + "' contains a parallel loop");
  if (auto why = carried_dependence(nest, *l); !why.empty()) return Applicability::no(why);
  return Applicability::yes();
}

LoopNest annotate_apply(const LoopNest& in, const Transform& t) {
  LoopNest nest = in;
  Node* l = nest.find_loop(t.loop);
  ATTUNE_CHECK(l, "annotate on a missing loop");
  switch (t.kind) {
    case TransformKind::unroll: l->kind = LoopKind::unrolled; break;
    case TransformKind::vectorize: l->kind = LoopKind::vectorized; break;
    case TransformKind::parallel: l->kind = LoopKind::parallel; break;
    default: ATTUNE_CHECK(false, "annotate_apply on a non-annotation");
  }
  return nest;
}

}  // namespace attune::sched
