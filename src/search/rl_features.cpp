// Fixed-size encodings of a loop nest (state) and of one transformation at it (action).
//
// Why this shape: the action set changes from state to state, so the network scores one
// (state, action) row at a time; both halves must have a fixed length whatever the op.
//
// State (kStateFeatures numbers):
//   global     step / max_steps, current gain / 5, local buffers / 4, parallel loops,
//              vectorized loops / 2, unrolled loops / 4, log2(MACs) / 40, init nest present
//   loops      the chain of loops from the update nest's root to its first update statement,
//              right-aligned so the innermost loop always sits in the last slot (it matters most);
//              each as loop_features() below; empty slots are zeros
//   tensors    the update statement's destination and first three reads, each: is a local
//              buffer, log2(bytes) / 25, contiguous in the innermost loop, invariant in it
// Loop (kLoopFeatures): log2(extent) / 10; parallel, vectorized, unrolled one-hot; indexes no
//   destination dimension (a reduction); contiguous in the destination; contiguous in read 0,
//   in read 1; used by read 0, by read 1; fused; present. "Contiguous" is coefficient 1 in the
//   last dimension; the statement is the first one below the loop.
// Action (kActionFeatures): kind one-hot (kKindSlots kinds, then stop); the loop it names (pack,
//   cache_write and compute_at: the loop `at`; reorder: the outer of the two; inline: none) as loop features;
//   log2(split factor) / 5; depth / 10; pack of read 0, of read 1; the cost model's one-step gain log(t(s) / t(s'))
//   clipped to [-5, 5]; the loop lies on the update chain; then the macro part (zeros for primitive moves): is a tile
//   macro, log2(vector tile) / 5, row tile / 8, log2(1 + reduction split) / 9, hoisted, rows inside, accumulator
//   registers used / 14. A macro's loop features are those of its row variable.
#include <algorithm>
#include <cmath>

#include "ir/error.hpp"
#include "schedule/analysis.hpp"
#include "search/rl.hpp"

namespace attune::rl {

namespace {

bool uses_loop(const Access& a, const Node& loop) {
  for (const auto& v : sched::iteration_vars(loop))
    for (const auto& e : a.index)
      if (e.uses(v)) return true;
  return false;
}

bool contiguous_in(const Access& a, const Node& loop) {
  if (a.index.empty() || !loop.bindings.empty()) return false;
  for (std::size_t d = 0; d + 1 < a.index.size(); ++d)
    if (a.index[d].uses(loop.var)) return false;
  return a.index.back().coeff(loop.var) == 1 && a.index.back().divisor == 1;
}

const Stmt* first_stmt(const std::vector<Node>& nodes, bool update_only) {
  for (const auto& n : nodes) {
    if (!n.is_loop()) {
      if (!update_only || n.stmt.kind == StmtKind::update) return &n.stmt;
      continue;
    }
    if (const Stmt* s = first_stmt(n.body, update_only)) return s;
  }
  return nullptr;
}

// The loops from the root down to the first update statement.
bool update_chain(const std::vector<Node>& nodes, std::vector<const Node*>& chain) {
  for (const auto& n : nodes) {
    if (!n.is_loop()) {
      if (n.stmt.kind == StmtKind::update) return true;
      continue;
    }
    chain.push_back(&n);
    if (update_chain(n.body, chain)) return true;
    chain.pop_back();
  }
  return false;
}

void loop_features(const Node& l, const Stmt* s, float* out) {
  out[0] = static_cast<float>(std::log2(std::max<std::int64_t>(1, l.extent)) / 10.0);
  out[1] = l.kind == LoopKind::parallel;
  out[2] = l.kind == LoopKind::vectorized;
  out[3] = l.kind == LoopKind::unrolled;
  if (s) {
    out[4] = !uses_loop(s->dst, l);
    out[5] = contiguous_in(s->dst, l);
    if (s->srcs.size() > 0) out[6] = contiguous_in(s->srcs[0], l), out[8] = uses_loop(s->srcs[0], l);
    if (s->srcs.size() > 1) out[7] = contiguous_in(s->srcs[1], l), out[9] = uses_loop(s->srcs[1], l);
  }
  out[10] = !l.bindings.empty();
  out[11] = 1;
}

}  // namespace

std::vector<float> state_features(const LoopNest& nest, int step, int max_steps, double log_gain) {
  std::vector<float> f(kStateFeatures, 0.0f);
  const auto loops = sched::all_loops(nest.body);
  int par = 0, vec = 0, unr = 0, locals = 0;
  for (const Node* l : loops) {
    par += l->kind == LoopKind::parallel;
    vec += l->kind == LoopKind::vectorized;
    unr += l->kind == LoopKind::unrolled;
  }
  for (const auto& b : nest.buffers) locals += b.kind == BufferKind::local;
  bool has_init = false;
  for (const auto& n : nest.body)
    if (const Stmt* s = n.is_loop() ? first_stmt(n.body, false) : nullptr; s && s->kind == StmtKind::init)
      has_init = true;
  f[0] = max_steps > 0 ? static_cast<float>(step) / static_cast<float>(max_steps) : 0.0f;
  f[1] = static_cast<float>(log_gain / 5.0);
  f[2] = static_cast<float>(locals) / 4.0f;
  f[3] = static_cast<float>(par);
  f[4] = static_cast<float>(vec) / 2.0f;
  f[5] = static_cast<float>(unr) / 4.0f;
  f[6] = static_cast<float>(std::log2(std::max<double>(1.0, static_cast<double>(nest.op.macs()))) / 40.0);
  f[7] = has_init;

  std::vector<const Node*> chain;
  update_chain(nest.body, chain);
  const Stmt* upd = first_stmt(nest.body, true);
  const std::size_t n = std::min<std::size_t>(chain.size(), kStateLoops);
  for (std::size_t i = 0; i < n; ++i) {
    const Node* l = chain[chain.size() - n + i];
    loop_features(*l, upd, &f[kGlobalFeatures + (kStateLoops - n + i) * kLoopFeatures]);
  }
  if (upd) {
    std::vector<const Access*> acc{&upd->dst};
    for (const auto& a : upd->srcs) acc.push_back(&a);
    const Node* inner = chain.empty() ? nullptr : chain.back();
    for (std::size_t i = 0; i < acc.size() && i < static_cast<std::size_t>(kStateTensors); ++i) {
      float* t = &f[kGlobalFeatures + kStateLoops * kLoopFeatures + i * kTensorFeatures];
      const auto* b = nest.buffer(acc[i]->tensor);
      t[0] = b && b->kind == BufferKind::local;
      t[1] = b ? static_cast<float>(std::log2(1.0 + static_cast<double>(b->numel() * dtype_size(b->dtype))) / 25.0) : 0;
      t[2] = inner && contiguous_in(*acc[i], *inner);
      t[3] = inner && !uses_loop(*acc[i], *inner);
    }
  }
  return f;
}

std::vector<float> action_features(const LoopNest& nest, const Transform* a, double predicted_gain) {
  std::vector<float> f(kActionFeatures, 0.0f);
  if (!a) {
    f[kStopSlot] = 1;
    return f;
  }
  ATTUNE_CHECK(static_cast<int>(a->kind) < kKindSlots, "rl_features: a transformation kind without a slot");
  f[static_cast<int>(a->kind)] = 1;
  std::string loop;
  switch (a->kind) {
    case TransformKind::reorder: loop = a->loops.size() > 1 ? a->loops[1] : ""; break;
    case TransformKind::pack:
    case TransformKind::cache_write:
    case TransformKind::compute_at: loop = a->at; break;
    case TransformKind::compute_inline: break;
    default: loop = a->loop;
  }
  if (const Node* l = loop.empty() || loop == "root" ? nullptr : nest.find_loop(loop)) {
    loop_features(*l, first_stmt(l->body, false), &f[kActionLoop]);
    f[kActionLoop + kLoopFeatures + 1] = static_cast<float>(nest.path_to(loop).size()) / 10.0f;
    std::vector<const Node*> chain;
    update_chain(nest.body, chain);
    f[kActionLoop + kLoopFeatures + 5] = std::find(chain.begin(), chain.end(), l) != chain.end();
  }
  if (a->kind == TransformKind::split && !a->factors.empty())
    f[kActionLoop + kLoopFeatures] = static_cast<float>(std::log2(static_cast<double>(a->factors.back())) / 5.0);
  if (a->kind == TransformKind::pack) {
    const auto ins = nest.op.input_tensors();
    if (!ins.empty() && ins[0] == a->tensor) f[kActionLoop + kLoopFeatures + 2] = 1;
    if (ins.size() > 1 && ins[1] == a->tensor) f[kActionLoop + kLoopFeatures + 3] = 1;
  }
  f[kActionLoop + kLoopFeatures + 4] = static_cast<float>(std::clamp(predicted_gain, -5.0, 5.0));
  return f;
}

std::vector<float> macro_features(const LoopNest& nest, const TileMacro& m, double predicted_gain) {
  std::vector<float> f(kActionFeatures, 0.0f);
  if (const Node* l = m.row_var.empty() ? nullptr : nest.find_loop(m.row_var)) {
    loop_features(*l, first_stmt(l->body, false), &f[kActionLoop]);
    f[kActionLoop + kLoopFeatures + 1] = static_cast<float>(nest.path_to(m.row_var).size()) / 10.0f;
    std::vector<const Node*> chain;
    update_chain(nest.body, chain);
    f[kActionLoop + kLoopFeatures + 5] = std::find(chain.begin(), chain.end(), l) != chain.end();
  }
  f[kActionLoop + kLoopFeatures + 4] = static_cast<float>(std::clamp(predicted_gain, -5.0, 5.0));
  float* x = &f[kActionLoop + kLoopFeatures + 6];
  x[0] = 1;
  x[1] = static_cast<float>(std::log2(static_cast<double>(m.vec_tile)) / 5.0);
  x[2] = static_cast<float>(m.row_tile) / 8.0f;
  x[3] = static_cast<float>(std::log2(1.0 + static_cast<double>(m.red_split)) / 9.0);
  x[4] = m.red_hoist;
  x[5] = m.rows_inside;
  x[6] = static_cast<float>(m.row_tile * ((m.vec_tile + 7) / 8)) / 14.0f;
  return f;
}

}  // namespace attune::rl
