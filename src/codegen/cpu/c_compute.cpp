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

bool CEmitter::emit_reduction_loop(const Node& l) {
  if (l.body.size() != 1 || l.body[0].is_loop() || !l.bindings.empty()) return false;
  const Stmt& s = l.body[0].stmt;
  if (s.kind != StmtKind::compute || s.reduce == Reduce::none) return false;
  for (const auto& e : s.dst.index)
    if (e.uses(l.var)) return false;
  const std::string dst = s.dst.tensor + "[" + offset(s.dst) + "]", v = var(l.var);
  const char* clause = s.reduce == Reduce::max ? "max" : s.reduce == Reduce::min ? "min" : "+";
  const std::int64_t begin = l.lowering.begin, end = l.lowering.end < 0 ? l.extent : l.lowering.end;
  line("{  /* " + comment_safe(l.var) + ": a reduction, one accumulator per lane */");
  ++indent;
  line("float acc_ = " + dst + ";");
  line(std::string("#pragma omp simd reduction(") + clause + ":acc_)");
  line("for (long " + v + " = " + std::to_string(begin) + "; " + v + " < " + std::to_string(end) + "; ++" + v + ") {");
  ++indent;
  std::string cond = guards(s), skip_unless;
  const std::string val = value_c(s.value, s, skip_unless);
  if (!skip_unless.empty()) cond = cond.empty() ? skip_unless : cond + " && " + skip_unless;
  const std::string text = stage_combine_c(s.reduce, "acc_", val, cpu_math());
  line(cond.empty() ? text : "if (" + cond + ") " + text);
  --indent;
  line("}");
  line(dst + " = acc_;");
  --indent;
  line("}");
  return true;
}

}  // namespace attune::cgen
