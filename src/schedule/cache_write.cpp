// cache_write(tensor, at): accumulates the output tile updated below loop `at` in a local
// buffer (registers, once the code generator promotes it) and writes it back at the end of
// `at`'s body.
//
// The local buffer has one dimension per loop below `at` that the output index uses; loops
// named "<loop>@<buffer>.init" zero it at the top of `at`'s body and loops named
// "<loop>@<buffer>.back" copy it back at the end.
// When no loop outside `at` carries the reduction, the tile is complete at write-back: it is
// stored with `=`, the separate init nest of the output is removed and the epilogue (bias,
// relu) is applied during the write-back, removing the epilogue nest too. Otherwise the
// write-back adds (`+=`) into the output, whose init and epilogue nests stay.
//
// Preconditions: `tensor` is the Op's output (of a multi-stage op: a tensor its contraction stages
// write, schedule/loopnest.hpp); no other statement below `at` reads it; `at` is a loop that holds its update statements,
// is not vectorized or unrolled; the output index uses no variable bound by a fused loop below
// `at`; the buffer holds at most 1M elements; no cache_write below `at` already.
#include <algorithm>

#include "ir/error.hpp"
#include "schedule/analysis.hpp"
#include "schedule/transforms.hpp"

namespace attune::sched {

namespace {

constexpr std::int64_t kMaxLocalElements = 1 << 20;

struct Plan {
  const Stmt* update = nullptr;
  std::vector<std::string> dims;     // loops below `at` the output index uses, outermost first
  std::vector<const Node*> outside;  // loops around `at`, outermost first, and `at` itself
  std::string why;
};

Plan plan(const LoopNest& nest, const Transform& t) {
  Plan p;
  // A multi-stage op caches what one of its contraction stages writes (its update statements),
  // the output or an intermediate; a contraction caches its output.
  if (!nest.op.multi_stage() && t.tensor != nest.op.output.tensor) {
    p.why = "'" + t.tensor + "' is not the output of the op (" + nest.op.output.tensor + ")";
    return p;
  }
  const Node* at = nest.find_loop(t.at);
  if (!at) {
    p.why = "no loop named '" + t.at + "'";
    return p;
  }
  if (at->kind == LoopKind::vectorized || at->kind == LoopKind::unrolled) {
    p.why = "cannot cache inside " + std::string(loop_kind_name(at->kind)) + " loop '" + t.at + "'";
    return p;
  }
  for (const auto& name : nest.path_to(t.at)) p.outside.push_back(nest.find_loop(name));
  for_each_stmt(at->body, [&](const Stmt& s, const std::vector<const Node*>& loops) {
    if (!p.why.empty()) return;
    // Another statement that reads the tensor below `at` would read it before the write-back.
    // (An update reads its srcs; the bias and epilogue value it carries are the write-back's.)
    bool reads = false;
    if (s.kind == StmtKind::update)
      for (const auto& a : s.srcs) reads = reads || a.tensor == t.tensor;
    else
      for_each_access(s, [&](const Access& a) { reads = reads || (&a != &s.dst && a.tensor == t.tensor); });
    if (reads) p.why = "a " + std::string(stmt_kind_name(s.kind)) + " statement below '" + t.at + "' reads '" + t.tensor + "'";
    if (s.kind != StmtKind::update) return;
    if (s.dst.tensor != t.tensor) {
      p.why = nest.op.multi_stage() ? "'" + s.dst.tensor + "' is updated below '" + t.at + "' too (cached already, or another stage)"
                                    : "the output is already cached below '" + t.at + "' (in '" + s.dst.tensor + "')";
      return;
    }
    if (p.update && !(s.dst == p.update->dst)) {
      p.why = "updates below '" + t.at + "' write through different indices";
      return;
    }
    p.update = &s;
    p.dims.clear();
    for (const Node* l : loops) {
      for (const auto& b : l->bindings)
        for (const auto& ix : s.dst.index)
          if (ix.uses(b.var)) p.why = "the output index uses '" + b.var + "', bound by fused loop '" + l->var + "'";
      bool used = false;
      for (const auto& ix : s.dst.index) used = used || ix.uses(l->var);
      if (used) p.dims.push_back(l->var);
    }
  });
  if (!p.why.empty()) return p;
  if (!p.update) {
    p.why = "'" + t.at + "' holds no update of '" + t.tensor + "'";
    return p;
  }
  std::int64_t n = 1;
  for (const auto& v : p.dims) n = saturating_mul(n, nest.find_loop(v)->extent);
  if (n > kMaxLocalElements)
    p.why = "local buffer would hold more than " + std::to_string(kMaxLocalElements) + " elements";
  return p;
}

// True when the nest at `index` in the root body only initialises (or only post-processes) `t`.
bool only_kind(const Node& n, StmtKind kind, const std::string& t) {
  bool only = true, any = false;
  for_each_stmt({n}, [&](const Stmt& s, const std::vector<const Node*>&) {
    any = true;
    if (s.kind != kind || s.dst.tensor != t) only = false;
  });
  return any && only;
}

}  // namespace

Applicability cache_write_check(const LoopNest& nest, const Transform& t) {
  const auto p = plan(nest, t);
  return p.why.empty() ? Applicability::yes() : Applicability::no(p.why);
}

LoopNest cache_write_apply(const LoopNest& in, const Transform& t) {
  const Plan p = plan(in, t);
  const Stmt update = *p.update;
  // Complete when every loop around (and including) `at` only iterates output elements.
  bool complete = true;
  for (const Node* l : p.outside)
    if (!write_separates_iterations(in, *l, update.dst.index)) complete = false;

  LoopNest nest = in;
  const std::string buf = fresh_buffer_name(nest, cache_write_buffer(t.tensor));
  BufferDecl decl;
  decl.name = buf;
  decl.dtype = nest.buffer(t.tensor)->dtype;
  decl.kind = BufferKind::local;
  decl.alloc_at = t.at;
  Access local{buf, {}};
  for (const auto& v : p.dims) {
    decl.shape.push_back(nest.find_loop(v)->extent);
    local.index.push_back(AffineExpr::var(v));
  }

  // Write-back guards: the update's guards over loops outside `at` or the cached dimensions.
  std::vector<std::string> known = p.dims;
  for (const Node* l : p.outside)
    for (auto& v : iteration_vars(*l)) known.push_back(v);
  std::vector<Guard> guards;
  for (const auto& g : update.guards) {
    bool ok = true;
    for (const auto& [v, c] : g.expr.terms)
      if (std::find(known.begin(), known.end(), v) == known.end()) ok = false;
    if (ok) guards.push_back(g);
  }

  auto nest_over = [&](Stmt s, CacheWriteCopy copy) {
    std::vector<Node> b{Node::make_stmt(std::move(s))};
    for (const auto& v : p.dims) substitute(b, v, AffineExpr::var(cache_write_copy_loop(v, buf, copy)));
    Node n = b[0];
    for (auto it = p.dims.rbegin(); it != p.dims.rend(); ++it)
      n = Node::make_loop(cache_write_copy_loop(*it, buf, copy), nest.find_loop(*it)->extent, {std::move(n)});
    return n;
  };
  Stmt zero;
  zero.kind = StmtKind::init;
  zero.dst = local;
  Stmt back;
  back.kind = StmtKind::writeback;
  back.dst = update.dst;
  back.srcs = {local};
  back.accumulate = !complete;
  back.guards = guards;
  if (complete && !nest.op.epilogue.empty()) {
    back.epilogue = true;
    back.bias = update.bias;
    back.value = update.value;
  }

  Node* at = nest.find_loop(t.at);
  for_each_stmt_mut(at->body, [&](Stmt& s) {
    if (s.kind != StmtKind::update || !(s.dst == update.dst)) return;
    s.dst = local;
    // A guard over the write-back's variables now gates the write-back: whatever the update
    // computes where it fails lands in a slot that is never stored, so the update can drop it
    // (its reads stay safe: out-of-bounds reads are zero). This keeps tails out of the
    // micro-kernel.
    std::erase_if(s.guards, [&](const Guard& g) { return std::find(guards.begin(), guards.end(), g) != guards.end(); });
  });
  at->body.insert(at->body.begin(), nest_over(zero, CacheWriteCopy::init));
  at->body.push_back(nest_over(back, CacheWriteCopy::back));
  nest.buffers.push_back(decl);

  if (complete) {
    const std::string out = t.tensor;
    std::erase_if(nest.body, [&](const Node& n) {
      return only_kind(n, StmtKind::init, out) || only_kind(n, StmtKind::epilogue, out);
    });
  }
  return nest;
}

}  // namespace attune::sched
