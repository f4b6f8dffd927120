// The statements of multi-stage ops: elementwise math in float through the math prelude
// (codegen/cpu/c_math.hpp), reductions with their identities, and vectorized reductions with
// one accumulator per lane. The values themselves are printed by the printer the CUDA backend
// shares (codegen/stage_expr_c.hpp), with the CPU's spelling of math and its indices.
#include "codegen/c_safe.hpp"
#include "codegen/cpu/c_emitter.hpp"
#include "codegen/cpu/c_math.hpp"
#include "codegen/stage_expr_c.hpp"
#include "ir/error.hpp"

namespace attune::cgen {

namespace {

// The CPU's math: the prelude's branch-free helpers where libm's would stop `omp simd`.
const MathSpelling& cpu_math() {
  static const MathSpelling m = [] {
    MathSpelling s;
    s.exp = "attune_exp";
    s.log = "logf";
    s.sqrt = "sqrtf";
    s.erf = "attune_erf";
    s.tanh = "attune_tanh";
    s.abs = "fabsf";
    s.max = "attune_max";
    s.min = "attune_min";
    return s;
  }();
  return m;
}

}  // namespace

std::string CEmitter::value_c(const Expr& e, const Stmt& s, std::string& skip_unless) const {
  MathSpelling m = cpu_math();
  m.cast = [this](DType t, const std::string& v) { return "(float)(" + ctype(t) + ")(" + v + ")"; };
  const ReadPrinter read = [&](const Access& a) {
    return ElementRead{"(float)" + a.tensor + "[" + offset(a) + "]", in_bounds(a, s)};
  };
  return stage_value_c(e, s.reduce, m, read, skip_unless);
}

std::string CEmitter::epilogue_value_c(const Stmt& s, const std::string& current) const {
  MathSpelling m = cpu_math();
  m.cast = [this](DType t, const std::string& v) { return "(float)(" + ctype(t) + ")(" + v + ")"; };
  const ReadPrinter read = [&](const Access& a) {
    if (a.tensor == nest().op.output.tensor) return ElementRead{"(" + current + ")", ""};
    return ElementRead{"(float)" + a.tensor + "[" + offset(a) + "]", in_bounds(a, s)};
  };
  std::string skip_unless;  // stays empty: Reduce::none reads zero outside
  return stage_value_c(s.value, Reduce::none, m, read, skip_unless);
}

void CEmitter::emit_compute_stmt(const Stmt& s) {
  std::string cond = guards(s), skip_unless;
  const std::string v = value_c(s.value, s, skip_unless);
  if (!skip_unless.empty()) cond = cond.empty() ? skip_unless : cond + " && " + skip_unless;
  const std::string dst = s.dst.tensor + "[" + offset(s.dst) + "]";
  const std::string text = stage_combine_c(s.reduce, dst, v, cpu_math());
  line(cond.empty() ? text : "if (" + cond + ") " + text);
}

namespace {

// The one reduction statement of a vectorized loop over a variable its output does not use.
const Stmt* vector_reduction(const Node& l) {
  if (l.kind != LoopKind::vectorized || l.lowering.vector_code) return nullptr;
  if (l.body.size() != 1 || l.body[0].is_loop() || !l.bindings.empty()) return nullptr;
  const Stmt& s = l.body[0].stmt;
  if (s.kind != StmtKind::compute || s.reduce == Reduce::none) return nullptr;
  for (const auto& e : s.dst.index)
    if (e.uses(l.var)) return nullptr;
  return &s;
}

const char* omp_clause(Reduce r) { return r == Reduce::max ? "max" : r == Reduce::min ? "min" : "+"; }

}  // namespace

const Node* CEmitter::lane_reduction_below(const Node& l) const {
  if (l.kind == LoopKind::vectorized || l.kind == LoopKind::parallel || l.lowering.phase) return nullptr;
  const Node* n = &l;
  while (n->kind != LoopKind::vectorized) {
    // Bindings (a fused loop's variables) would define what the output's index uses inside.
    if (n->body.size() != 1 || !n->body[0].is_loop() || !n->bindings.empty() || n->lowering.phase ||
        n->kind == LoopKind::parallel)
      return nullptr;
    n = &n->body[0];
  }
  const Stmt* s = vector_reduction(*n);
  if (!s) return nullptr;
  for (const Node* m = &l; m != n; m = &m->body[0])
    for (const auto& e : s->dst.index)
      if (e.uses(m->var)) return nullptr;
  return n;
}

void CEmitter::emit_lane_reduction(const Node& outer, const Node& vector_loop) {
  const Stmt& s = vector_loop.body[0].stmt;
  const std::string dst = s.dst.tensor + "[" + offset(s.dst) + "]", width = std::to_string(vector_loop.extent);
  line("{  /* " + comment_safe(outer.var) + " .. " + comment_safe(vector_loop.var) +
       ": a reduction kept in one accumulator per lane across these loops, combined once after them */");
  ++indent;
  line("float lane_acc_[" + width + "] __attribute__((aligned(64)));");
  line("#pragma omp simd");
  line("for (long l_ = 0; l_ < " + width + "; ++l_) lane_acc_[l_] = " + c_float(reduce_identity(s.reduce)) + ";");
  in_lane_reduction_ = true;
  emit_loop(outer);
  in_lane_reduction_ = false;
  line("float acc_ = " + dst + ";");
  line(std::string("#pragma omp simd reduction(") + omp_clause(s.reduce) + ":acc_)");
  line("for (long l_ = 0; l_ < " + width + "; ++l_) " + stage_combine_c(s.reduce, "acc_", "lane_acc_[l_]", cpu_math()));
  line(dst + " = acc_;");
  --indent;
  line("}");
}

bool CEmitter::emit_reduction_loop(const Node& l) {
  const Stmt* sp = vector_reduction(l);
  if (!sp) return false;
  const Stmt& s = *sp;
  const std::string dst = s.dst.tensor + "[" + offset(s.dst) + "]", v = var(l.var);
  const std::int64_t begin = l.lowering.begin, end = l.lowering.end < 0 ? l.extent : l.lowering.end;
  std::string cond = guards(s), skip_unless;
  const std::string val = value_c(s.value, s, skip_unless);
  if (!skip_unless.empty()) cond = cond.empty() ? skip_unless : cond + " && " + skip_unless;
  auto loop_over = [&](const std::string& acc) {
    line("for (long " + v + " = " + std::to_string(begin) + "; " + v + " < " + std::to_string(end) + "; ++" + v + ") {");
    ++indent;
    const std::string text = stage_combine_c(s.reduce, acc, val, cpu_math());
    line(cond.empty() ? text : "if (" + cond + ") " + text);
    --indent;
    line("}");
  };
  if (in_lane_reduction_) {  // inside emit_lane_reduction: lane v's accumulator is lane_acc_[v]
    line("#pragma omp simd");
    loop_over("lane_acc_[" + v + "]");
    return true;
  }
  line("{  /* " + comment_safe(l.var) + ": a reduction, one accumulator per lane */");
  ++indent;
  line("float acc_ = " + dst + ";");
  line(std::string("#pragma omp simd reduction(") + omp_clause(s.reduce) + ":acc_)");
  loop_over("acc_");
  line(dst + " = acc_;");
  --indent;
  line("}");
  return true;
}

}  // namespace attune::cgen
