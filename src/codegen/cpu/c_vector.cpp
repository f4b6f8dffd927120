// Vectorized loops and register promotion for the C backend.
//
// A vectorized loop `v` becomes extent/lanes vector statements (always expanded: vectorize
// refuses extents above 64) when every statement below it is f32 and each access is either
// invariant in `v` (broadcast) or contiguous in it (`v` only in the last dimension, coefficient
// 1, no bounds check needed there). Otherwise the loop is emitted as `#pragma omp simd`.
//
// A write-back whose destination is not contiguous in `v` (a convolution vectorized over output
// channels in NCHW, say) still counts when its source is: the source is read as one vector and
// its lanes are stored one by one. The accumulators can then stay in registers; only the
// write-back, once per tile, is scalar.
//
// A local f32 buffer of at most 16 vectors is promoted to vector variables when every access to
// it sits in such a vectorized loop with all its other index variables unrolled: its indices
// are then constants, and the accumulators of a register-blocked micro-kernel stay in
// registers instead of going through memory.
#include <algorithm>

#include "attune/c_safe.hpp"
#include "attune/error.hpp"
#include "codegen/cpu/c_emitter.hpp"
#include "schedule/analysis.hpp"

namespace attune::cgen {

namespace {

bool uses_only_last(const Access& a, const std::string& v) {
  for (std::size_t d = 0; d + 1 < a.index.size(); ++d)
    if (a.index[d].uses(v)) return false;
  return !a.index.empty() && a.index.back().coeff(v) == 1 && a.index.back().divisor == 1;
}

bool uses(const Access& a, const std::string& v) {
  return std::any_of(a.index.begin(), a.index.end(), [&](const AffineExpr& e) { return e.uses(v); });
}

std::vector<const Access*> accesses(const Stmt& s) {
  std::vector<const Access*> r{&s.dst};
  for (const auto& a : s.srcs) r.push_back(&a);
  // Update statements only carry the bias for a later write-back; they do not read it.
  const bool reads_bias = s.kind == StmtKind::epilogue || (s.kind == StmtKind::writeback && s.epilogue);
  if (s.bias && reads_bias) r.push_back(&*s.bias);
  return r;
}

}  // namespace

bool CEmitter::access_vectorizable(const Access& a, const Stmt& s, const std::string& v) const {
  const auto* b = nest().buffer(a.tensor);
  if (b->dtype != DType::f32) return false;
  if (!uses(a, v)) return &a != &s.dst;  // a store must vary with the loop
  if (!uses_only_last(a, v)) return false;
  if (b->kind == BufferKind::local) return true;
  // The contiguous dimension must not need a bounds check.
  const auto& e = a.index.back();
  auto r = sched::range_of(nest(), e);
  for (const auto& g : s.guards)
    if (g.expr == e) r.hi = std::min(r.hi, g.bound - 1);
  return r.lo >= 0 && r.hi < b->shape.back();
}

bool CEmitter::stmt_vectorizable(const Stmt& s, const std::string& v) const {
  for (const auto& g : s.guards)
    if (g.expr.uses(v)) return false;
  for (const Access* a : accesses(s))
    if (!access_vectorizable(*a, s, v)) return false;
  return true;
}

bool CEmitter::stmt_scatterable(const Stmt& s, const std::string& v) const {
  if (s.kind != StmtKind::writeback && s.kind != StmtKind::copy) return false;
  const auto* d = nest().buffer(s.dst.tensor);
  if (d->dtype != DType::f32 || !uses(s.dst, v)) return false;
  return access_vectorizable(s.srcs.at(0), s, v);
}

bool CEmitter::stmt_vector_or_scatter(const Stmt& s, const std::string& v) const {
  return stmt_vectorizable(s, v) || stmt_scatterable(s, v);
}

void CEmitter::emit_scattered_stmt(const Stmt& s, const std::string& v, std::int64_t base) {
  line("{");
  ++indent;
  line("const vf lanes_ = " + vector_read(s.srcs.at(0), s, v, base) + ";");
  for (int j = 0; j < lanes(); ++j) {
    consts[v] = base + j;
    const std::string dst = s.dst.tensor + "[" + offset(s.dst) + "]";
    std::string val = "lanes_[" + std::to_string(j) + "]";
    if (s.kind == StmtKind::writeback) {
      if (s.accumulate) val = dst + " + " + val;
      if (s.epilogue) {
        if (s.bias) val = "(" + val + " + " + scalar_read(*s.bias, s) + ")";
        if (nest().op.epilogue.relu) val = "(" + val + " > 0 ? " + val + " : 0)";
      }
    }
    const std::string cond = guards(s);
    line((cond.empty() ? "" : "if (" + cond + ") ") + dst + " = " + val + ";");
  }
  consts[v] = base;
  --indent;
  line("}");
}

void CEmitter::decide_promotions() {
  std::set<std::string> bad;
  std::set<std::string> seen;
  struct Walk {
    CEmitter& self;
    std::set<std::string>& bad;
    std::set<std::string>& seen;
    std::vector<std::string> unrolled;
    std::string vec;
    bool vec_ok = false;
    void nodes(const std::vector<Node>& ns) {
      for (const auto& n : ns) {
        if (!n.is_loop()) {
          stmt(n.stmt);
          continue;
        }
        const auto saved_vec = vec;
        const bool saved_ok = vec_ok;
        const auto saved_unrolled = unrolled.size();
        if (n.kind == LoopKind::unrolled) unrolled.push_back(n.var);
        if (n.kind == LoopKind::vectorized) {
          // Mirrors emit_vector_loop: the whole loop is vector code or none of it is.
          vec = n.var;
          vec_ok = n.extent % self.lanes() == 0;
          for (const auto& c : n.body)
            if (c.is_loop() || !self.stmt_vector_or_scatter(c.stmt, vec)) vec_ok = false;
        }
        // Bound variables are never constants: a fused loop disqualifies what it indexes.
        nodes(n.body);
        vec = saved_vec;
        vec_ok = saved_ok;
        unrolled.resize(saved_unrolled);
      }
    }
    void stmt(const Stmt& s) {
      for (const Access* a : accesses(s)) {
        const auto* b = self.nest().buffer(a->tensor);
        if (b->kind != BufferKind::local) continue;
        seen.insert(a->tensor);
        bool ok = !vec.empty() && vec_ok && uses_only_last(*a, vec);
        for (const auto& e : a->index)
          for (const auto& [x, c] : e.terms)
            if (x != vec && std::find(unrolled.begin(), unrolled.end(), x) == unrolled.end()) ok = false;
        if (!ok) bad.insert(a->tensor);
      }
    }
  } walk{*this, bad, seen, {}, {}, false};
  walk.nodes(nest().body);
  for (const auto& b : nest().buffers) {
    if (b.kind != BufferKind::local || b.dtype != DType::f32 || !seen.count(b.name) || bad.count(b.name))
      continue;
    if (b.shape.empty() || b.shape.back() % lanes() != 0) continue;
    // At most the register tile's budget of vectors (the rest of the file feeds the tile).
    if (b.numel() / lanes() > VectorRegisters{lanes(), opts_.vector_registers}.accumulators()) continue;
    promoted_.insert(b.name);
  }
}

void CEmitter::declare_promoted(const BufferDecl& b) {
  std::string decl = "vf";
  for (std::int64_t i = 0; i < b.numel() / lanes(); ++i)
    decl += (i ? ", " : " ") + b.name + "_r" + std::to_string(i) + " = {0}";
  line(decl + ";  /* " + comment_safe(b.name) + " in registers */");
}

std::string CEmitter::promoted_reg(const Access& a, const std::string& v, std::int64_t base) const {
  const auto* b = nest().buffer(a.tensor);
  std::int64_t flat = 0, stride = 1;
  for (std::size_t d = a.index.size(); d-- > 0;) {
    auto val = a.index[d].eval([&](const std::string& x) -> std::int64_t {
      if (x == v) return base;
      auto it = consts.find(x);
      ATTUNE_CHECK(it != consts.end(), "promoted buffer indexed by non-constant " + x);
      return it->second;
    });
    ATTUNE_CHECK(val.has_value(), "promoted buffer index divides");
    flat += *val * stride;
    stride *= b->shape[d];
  }
  return b->name + "_r" + std::to_string(flat / lanes());
}

std::string CEmitter::vector_read(const Access& a, const Stmt& s, const std::string& v, std::int64_t base) {
  if (promoted(a.tensor)) return promoted_reg(a, v, base);
  if (!uses(a, v)) return "vbc(" + scalar_read(a, s) + ")";
  const std::string load = "vld(&" + a.tensor + "[" + offset(a) + "])";
  const std::string cond = in_bounds(a, s);
  return cond.empty() ? load : "(" + cond + " ? " + load + " : (vf){0})";
}

void CEmitter::emit_vector_stmt(const Stmt& s, const std::string& v, std::int64_t base) {
  std::string cond = guards(s);
  auto also = [&](const std::string& c) {
    if (!c.empty()) cond = cond.empty() ? c : cond + " && " + c;
  };
  auto store = [&](const std::string& value) {
    if (promoted(s.dst.tensor)) return promoted_reg(s.dst, v, base) + " = " + value + ";";
    return "vst(&" + s.dst.tensor + "[" + offset(s.dst) + "], " + value + ");";
  };
  auto current = [&] { return vector_read(s.dst, s, v, base); };
  auto epilogue = [&](std::string val) {
    if (s.bias) val = "(" + val + " + " + vector_read(*s.bias, s, v, base) + ")";
    if (nest().op.epilogue.relu) val = "vrelu(" + val + ")";
    return val;
  };
  std::string text;
  switch (s.kind) {
    case StmtKind::init: text = store("(vf){0}"); break;
    case StmtKind::update: {
      std::string prod;
      for (const auto& a : s.srcs) {
        // Out-of-bounds factors skip the whole update, as in the scalar form.
        if (!promoted(a.tensor)) also(in_bounds(a, s));
        std::string r = promoted(a.tensor) ? promoted_reg(a, v, base)
                        : uses(a, v)       ? "vld(&" + a.tensor + "[" + offset(a) + "])"
                                           : "vbc(" + a.tensor + "[" + offset(a) + "])";
        prod += (prod.empty() ? "" : " * ") + r;
      }
      text = store(current() + " + " + prod);
      break;
    }
    case StmtKind::copy: text = store(vector_read(s.srcs.at(0), s, v, base)); break;
    case StmtKind::writeback: {
      std::string val = vector_read(s.srcs.at(0), s, v, base);
      if (s.accumulate) val = current() + " + " + val;
      if (s.epilogue) val = epilogue(val);
      text = store(val);
      break;
    }
    case StmtKind::epilogue: text = store(epilogue(current())); break;
  }
  if (cond.empty())
    line(text);
  else
    line("if (" + cond + ") " + text);
}

bool CEmitter::emit_vector_loop(const Node& l) {
  if (l.extent % lanes() != 0) return false;
  for (const auto& n : l.body)
    if (n.is_loop() || !stmt_vector_or_scatter(n.stmt, l.var)) return false;
  for (std::int64_t base = 0; base < l.extent; base += lanes()) {
    consts[l.var] = base;
    for (const auto& n : l.body) {
      if (stmt_vectorizable(n.stmt, l.var))
        emit_vector_stmt(n.stmt, l.var, base);
      else
        emit_scattered_stmt(n.stmt, l.var, base);
    }
  }
  consts.erase(l.var);
  return true;
}

}  // namespace attune::cgen
