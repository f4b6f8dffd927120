// Printing vector loops (mark_vector_loops decided which) and promoted buffers
// (promote_registers decided which): each chunk of `lanes` iterations becomes one vector
// statement per statement of the loop, or, for a scatter, a vector read stored lane by lane.
#include <algorithm>

#include "codegen/c_safe.hpp"
#include "codegen/cpu/c_emitter.hpp"
#include "codegen/cpu/c_math.hpp"
#include "codegen/cpu/vector_rules.hpp"
#include "ir/error.hpp"

namespace attune::cgen {

void CEmitter::emit_scattered_stmt(const Stmt& s, const std::string& v, std::int64_t base) {
  line("{");
  ++indent;
  line("const vf lanes_ = " + vector_read(s.srcs.at(0), s, v, base) + ";");
  for (int j = 0; j < lanes(); ++j) {
    env_.consts[v] = base + j;
    const std::string dst = s.dst.tensor + "[" + offset(s.dst) + "]";
    std::string val = "lanes_[" + std::to_string(j) + "]";
    if (s.kind == StmtKind::writeback) {
      if (s.accumulate) val = dst + " + " + val;
      if (s.epilogue) {
        if (s.bias) val = "(" + val + " + " + scalar_read(*s.bias, s) + ")";
        if (nest().op.epilogue.relu) val = "(" + val + " > 0 ? " + val + " : 0)";
        if (nest().op.epilogue.value) val = epilogue_value_c(s, val);
      }
    }
    const std::string cond = guards(s);
    line((cond.empty() ? "" : "if (" + cond + ") ") + dst + " = " + val + ";");
  }
  env_.consts[v] = base;
  --indent;
  line("}");
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
      auto it = env_.consts.find(x);
      ATTUNE_CHECK(it != env_.consts.end(), "promoted buffer indexed by non-constant " + x);
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
    case StmtKind::init: text = store(s.init_value == 0 ? "(vf){0}" : "vbc(" + c_float(s.init_value) + ")"); break;
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
    case StmtKind::compute: ATTUNE_CHECK(false, "mark_vector_loops never marks a loop over a compute statement");
  }
  if (nest().op.epilogue.value && (s.kind == StmtKind::epilogue || (s.kind == StmtKind::writeback && s.epilogue))) {
    // `text` is the store of the value before the epilogue's own: apply it lane by lane.
    std::string before = s.kind == StmtKind::epilogue ? epilogue(current()) : vector_read(s.srcs.at(0), s, v, base);
    if (s.kind == StmtKind::writeback) {
      if (s.accumulate) before = current() + " + " + before;
      before = epilogue(before);
    }
    emit_vector_epilogue_value(s, v, base, before, cond, store);
    return;
  }
  if (cond.empty())
    line(text);
  else
    line("if (" + cond + ") " + text);
}

void CEmitter::emit_vector_epilogue_value(const Stmt& s, const std::string& v, std::int64_t base,
                                          const std::string& current, const std::string& cond,
                                          const std::function<std::string(const std::string&)>& store) {
  const std::string n = std::to_string(lanes());
  line(cond.empty() ? "{" : "if (" + cond + ") {");
  ++indent;
  line("float e_[" + n + "];");
  line("vst(e_, " + current + ");");
  line("#pragma omp simd");
  line("for (long l_ = 0; l_ < " + n + "; ++l_) {");
  ++indent;
  // The loop variable is the lane's, not the chunk's constant, inside this loop.
  env_.consts.erase(v);
  line("const long " + var(v) + " = " + std::to_string(base) + " + l_;");
  line("e_[l_] = " + epilogue_value_c(s, "e_[l_]") + ";");
  env_.consts[v] = base;
  --indent;
  line("}");
  line(store("vld(e_)"));
  --indent;
  line("}");
}

void CEmitter::emit_vector_loop(const Node& l) {
  ATTUNE_CHECK(l.lowering.vector_code && l.extent % lanes() == 0, "loop " + l.var + " is not vector code");
  for (std::int64_t base = 0; base < l.extent; base += lanes()) {
    env_.consts[l.var] = base;
    for (const auto& n : l.body) {
      if (n.stmt.scatter)
        emit_scattered_stmt(n.stmt, l.var, base);
      else
        emit_vector_stmt(n.stmt, l.var, base);
    }
  }
  env_.consts.erase(l.var);
}

}  // namespace attune::cgen
