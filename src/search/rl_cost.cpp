// The RL agent's cheap reward: an analytic estimate of how long the C emitted for a nest runs.
//
// It is a ranking device, not a predictor of absolute times, and it models only what the CPU
// backend's output is known to depend on (codegen_cpu.hpp, shared/CPU-CODEGEN.md):
//   - lanes: a vectorized innermost loop that the code generator's lowering makes vector code
//     (mark_vector_loops, codegen/lowering.hpp) runs at the target's lanes; otherwise `omp simd`
//     (counted as 2 lanes). A serial
//     innermost loop that carries no dependence and is contiguous is auto-vectorized by gcc -O3
//     (counted as half the lanes).
//   - latency: an update whose innermost serial loop does not index its destination is a chain
//     of dependent adds; the chain costs 4 cycles per step (6 through memory) divided by the
//     independent accumulators the unrolled/vectorized loops inside provide, at best 0.5 cycle
//     (two FMA ports).
//   - memory: per access and vector operation, contiguous loads cost half a cycle, a broadcast
//     half a cycle shared by the vector chunks of the vectorized loop (a tenth otherwise),
//     strided ones a cycle per lane, and a load that an unrolled loop does not vary is shared
//     by its copies (register reuse); a stride of a cache line or more into a
//     tensor larger than the L2 costs four times that. A destination kept in memory adds a load
//     and a store; one the lowering keeps in registers (promote_registers) adds nothing.
//   - loop overhead: one cycle per iteration of the innermost loop that is not expanded, and
//     ten cycles per bound variable per trip of a fused loop (its division or modulo).
//   - parallel: a parallel loop divides its statements' time over min(threads, extent)
//     (rounded to whole rounds) and costs 2 us per entry into the parallel region.
#include <algorithm>
#include <cmath>

#include "codegen/lowering.hpp"
#include "schedule/analysis.hpp"
#include "search/rl.hpp"

namespace attune::rl {

namespace {

constexpr double kL2Bytes = 1 << 20;
constexpr double kForkSeconds = 2e-6;
constexpr double kBindingCycles = 10;  // one integer division or modulo

bool indexes(const Access& a, const Node& loop) {
  for (const auto& v : sched::iteration_vars(loop))
    for (const auto& e : a.index)
      if (e.uses(v)) return true;
  return false;
}

std::vector<const Access*> reads(const Stmt& s) {
  std::vector<const Access*> r;
  for (const auto& a : s.srcs) r.push_back(&a);
  const bool reads_bias = s.kind == StmtKind::epilogue || (s.kind == StmtKind::writeback && s.epilogue);
  if (s.bias && reads_bias) r.push_back(&*s.bias);
  return r;
}

enum class Pattern { invariant, contiguous, strided };

// How an access moves as the innermost loop `l` advances; `stride_elems` in elements.
Pattern pattern(const LoopNest& nest, const Access& a, const Node& l, double* stride_elems) {
  *stride_elems = 0;
  if (!indexes(a, l)) return Pattern::invariant;
  if (!l.bindings.empty()) {  // a fused loop's bound variables: strides vary, assume the worst
    *stride_elems = 1e9;
    return Pattern::strided;
  }
  const auto* b = nest.buffer(a.tensor);
  double stride = 0, dim_size = 1;
  for (std::size_t d = a.index.size(); d-- > 0;) {
    const auto& e = a.index[d];
    if (e.divisor != 1 && e.uses(l.var)) {
      *stride_elems = 1e9;
      return Pattern::strided;
    }
    stride += static_cast<double>(e.coeff(l.var)) * dim_size;
    if (b && d < b->shape.size()) dim_size *= static_cast<double>(b->shape[d]);
  }
  *stride_elems = std::abs(stride);
  return *stride_elems == 1 ? Pattern::contiguous : Pattern::strided;
}

bool expanded(const Node& l) { return l.kind == LoopKind::unrolled || l.kind == LoopKind::vectorized; }

// What the code generator's lowering decides that this model depends on: which vectorized
// loops are vector code and which local buffers live in registers. Read from the passes
// themselves, so the model never drifts from the printer.
struct Lowered {
  LoopNest nest;
  bool promoted(const Access& a) const {
    const auto* b = nest.buffer(a.tensor);
    return b && b->in_registers;
  }
  bool vector_code(const Node& loop) const {
    const Node* l = nest.find_loop(loop.var);
    return l && l->lowering.vector_code;
  }
};

double tensor_bytes(const LoopNest& nest, const std::string& name) {
  const auto* b = nest.buffer(name);
  return b ? static_cast<double>(b->numel()) * static_cast<double>(dtype_size(b->dtype)) : 0;
}

double stmt_seconds(const LoopNest& nest, const Lowered& lowered, const Stmt& s, const std::vector<const Node*>& loops,
                    const CostParams& p) {
  double iters = 1;
  for (const Node* l : loops) iters *= static_cast<double>(l->extent);
  if (loops.empty()) return iters / (p.ghz * 1e9);
  const Node& inner = *loops.back();
  const bool dst_promoted = lowered.promoted(s.dst);

  // The innermost loop that is not expanded: each of its iterations is one trip of the body.
  const Node* serial = nullptr;
  for (const Node* l : loops)
    if (!expanded(*l)) serial = l;

  // Lanes of the innermost loop.
  std::vector<const Access*> all = reads(s);
  all.push_back(&s.dst);
  bool contiguous_all = true;
  for (const Access* a : all) {
    double st = 0;
    const auto* b = nest.buffer(a->tensor);
    if (b && b->dtype != DType::f32) contiguous_all = false;
    if (pattern(nest, *a, inner, &st) == Pattern::strided) contiguous_all = false;
  }
  if (!indexes(s.dst, inner)) contiguous_all = false;  // a store must vary with the loop
  const bool chain = s.kind == StmtKind::update && serial && !indexes(s.dst, *serial);
  double lanes = 1;
  if (inner.kind == LoopKind::vectorized)
    lanes = lowered.vector_code(inner) ? std::min<double>(p.vectors.lanes, static_cast<double>(inner.extent)) : 2;
  else if (inner.kind == LoopKind::serial && contiguous_all && !chain)
    lanes = std::max(1.0, std::min<double>(p.vectors.lanes, static_cast<double>(inner.extent)) / 2);
  const double vec_ops = iters / lanes;

  // Compute and latency per vector operation.
  double cycles = s.kind == StmtKind::update ? 0.5 : 0.25;
  if (chain) {
    double accumulators = 1;
    bool inside = false;
    for (const Node* l : loops) {
      if (l == serial) {
        inside = true;
        continue;
      }
      if (inside && indexes(s.dst, *l))
        accumulators *= l->kind == LoopKind::vectorized ? std::ceil(static_cast<double>(l->extent) / lanes)
                                                        : static_cast<double>(l->extent);
    }
    cycles = std::max(0.5, (dst_promoted ? 4.0 : 6.0) / accumulators);
  }
  // Memory.
  for (const Access* a : reads(s)) {
    if (lowered.promoted(*a)) continue;
    double st = 0;
    const Pattern pt = pattern(nest, *a, inner, &st);
    const auto* b = nest.buffer(a->tensor);
    const double elem = b ? static_cast<double>(dtype_size(b->dtype)) : 4;
    const double miss = st * elem >= 64 && tensor_bytes(nest, a->tensor) > kL2Bytes ? 4 : 1;
    double load = 0;
    if (pt == Pattern::invariant)
      load = inner.kind == LoopKind::vectorized ? 0.5 / std::ceil(static_cast<double>(inner.extent) / lanes) : 0.1;
    else if (pt == Pattern::contiguous)
      load = 0.5 * miss;
    else
      load = lanes * miss;
    // Register reuse: the expanded copies of the body share a load that does not vary with the
    // unrolled loop that made them (gcc keeps it in a register).
    for (const Node* l : loops)
      if (l != &inner && l->kind == LoopKind::unrolled && !indexes(*a, *l)) load /= static_cast<double>(l->extent);
    cycles += load;
  }
  if (!dst_promoted) cycles += s.kind == StmtKind::init || s.kind == StmtKind::copy ? 0.5 : 1.0;
  if (!s.guards.empty()) cycles += 0.5;

  // Loop overhead: one cycle per trip of the innermost non-expanded loop.
  double body_trips = iters;
  for (const Node* l : loops)
    if (expanded(*l)) body_trips /= static_cast<double>(l->extent);
  double total_cycles = vec_ops * cycles + (serial ? body_trips : 0);
  // A fused loop recomputes its bound variables (a division and a modulo each) every trip.
  double trips = 1;
  for (const Node* l : loops) {
    trips *= static_cast<double>(l->extent);
    if (!l->bindings.empty()) total_cycles += kBindingCycles * static_cast<double>(l->bindings.size()) * trips;
  }

  // Parallelism.
  double seconds = total_cycles / (p.ghz * 1e9);
  double outside = 1;
  for (const Node* l : loops) {
    if (l->kind == LoopKind::parallel) {
      const double e = static_cast<double>(l->extent);
      const double rounds = std::ceil(e / p.threads);
      seconds = seconds * rounds / e + outside * kForkSeconds;
      break;
    }
    outside *= static_cast<double>(l->extent);
  }
  return seconds;
}

}  // namespace

std::int64_t emitted_statements(const LoopNest& nest, int lanes) {
  std::int64_t total = 0;
  sched::for_each_stmt(nest.body, [&](const Stmt&, const std::vector<const Node*>& loops) {
    std::int64_t n = 1;
    for (const Node* l : loops) {
      if (l->kind == LoopKind::unrolled) n *= l->extent;
      if (l->kind == LoopKind::vectorized) n *= (l->extent + lanes - 1) / lanes;
    }
    total += n;
  });
  return total;
}

double model_seconds(const LoopNest& nest, const CostParams& p) {
  const int lanes = p.vectors.lanes;
  const Lowered lowered{promote_registers(mark_vector_loops(nest, lanes), lanes, p.vectors.count)};
  double total = 0;
  sched::for_each_stmt(nest.body, [&](const Stmt& s, const std::vector<const Node*>& loops) {
    total += stmt_seconds(nest, lowered, s, loops, p);
  });
  return std::max(total, 1e-9);
}

}  // namespace attune::rl
