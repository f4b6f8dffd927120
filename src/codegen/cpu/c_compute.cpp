// The statements of multi-stage ops: elementwise math in float through the math prelude
// (codegen/cpu/c_math.hpp), reductions with their identities, and vectorized reductions with
// one accumulator per lane.
#include <cmath>

#include "codegen/c_safe.hpp"
#include "codegen/cpu/c_emitter.hpp"
#include "codegen/cpu/c_math.hpp"
#include "ir/error.hpp"

namespace attune::cgen {

namespace {

std::string unary_c(UnaryFn f, const std::string& a) {
  switch (f) {
    case UnaryFn::neg: return "(-" + a + ")";
    case UnaryFn::exp: return "attune_exp(" + a + ")";
    case UnaryFn::log: return "logf(" + a + ")";
    case UnaryFn::sqrt: return "sqrtf(" + a + ")";
    case UnaryFn::rsqrt: return "(1.0f / sqrtf(" + a + "))";
    case UnaryFn::erf: return "attune_erf(" + a + ")";
    case UnaryFn::tanh: return "attune_tanh(" + a + ")";
    case UnaryFn::abs: return "fabsf(" + a + ")";
    case UnaryFn::sigmoid: return "(1.0f / (1.0f + attune_exp(-" + a + ")))";
  }
  return a;
}

std::string binary_c(BinaryFn f, const std::string& a, const std::string& b) {
  switch (f) {
    case BinaryFn::max: return "attune_max(" + a + ", " + b + ")";
    case BinaryFn::min: return "attune_min(" + a + ", " + b + ")";
    case BinaryFn::add:
    case BinaryFn::sub:
    case BinaryFn::mul:
    case BinaryFn::div: return "(" + a + " " + std::string(binary_fn_name(f)) + " " + b + ")";
    default: return "(float)(" + a + " " + std::string(binary_fn_name(f)) + " " + b + ")";  // comparisons
  }
}

// dst combined with v as the statement's reduction says.
std::string combine(Reduce r, const std::string& dst, const std::string& v) {
  switch (r) {
    case Reduce::sum:
    case Reduce::mean: return dst + " += " + v + ";";
    case Reduce::max: return dst + " = attune_max(" + dst + ", " + v + ");";
    case Reduce::min: return dst + " = attune_min(" + dst + ", " + v + ");";
    case Reduce::none: break;
  }
  return dst + " = " + v + ";";
}

}  // namespace

std::string CEmitter::value_c(const Expr& e, const Stmt& s, std::string& skip_unless) const {
  switch (e.kind) {
    case Expr::Kind::load: {
      const Access& a = e.load;
      const std::string cond = in_bounds(a, s);
      const std::string read = "(float)" + a.tensor + "[" + offset(a) + "]";
      if (cond.empty()) return read;
      if (s.reduce == Reduce::max || s.reduce == Reduce::min) {
        skip_unless = skip_unless.empty() ? cond : skip_unless + " && " + cond;
        return read;
      }
      return "(" + cond + " ? " + read + " : 0.0f)";
    }
    case Expr::Kind::constant: return c_float(e.value);
    case Expr::Kind::unary: return unary_c(e.unary_fn, value_c(e.args[0], s, skip_unless));
    case Expr::Kind::binary:
      return binary_c(e.binary_fn, value_c(e.args[0], s, skip_unless), value_c(e.args[1], s, skip_unless));
    case Expr::Kind::select:
      return "(" + value_c(e.args[0], s, skip_unless) + " != 0.0f ? " + value_c(e.args[1], s, skip_unless) + " : " +
             value_c(e.args[2], s, skip_unless) + ")";
    case Expr::Kind::cast: return "(float)(" + ctype(e.cast_to) + ")(" + value_c(e.args[0], s, skip_unless) + ")";
  }
  return "0.0f";
}

void CEmitter::emit_compute_stmt(const Stmt& s) {
  std::string cond = guards(s), skip_unless;
  const std::string v = value_c(s.value, s, skip_unless);
  if (!skip_unless.empty()) cond = cond.empty() ? skip_unless : cond + " && " + skip_unless;
  const std::string dst = s.dst.tensor + "[" + offset(s.dst) + "]";
  const std::string text = combine(s.reduce, dst, v);
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
  const std::string text = combine(s.reduce, "acc_", val);
  line(cond.empty() ? text : "if (" + cond + ") " + text);
  --indent;
  line("}");
  line(dst + " = acc_;");
  --indent;
  line("}");
  return true;
}

}  // namespace attune::cgen
