// stage_expr_c.cpp — the shared printer of multi-stage statements (codegen/stage_expr_c.hpp).
#include "codegen/stage_expr_c.hpp"

#include <cmath>
#include <cstdio>

namespace attune::cgen {

namespace {

std::string call(const std::string& fn, const std::string& a) { return fn + "(" + a + ")"; }

std::string unary_c(UnaryFn f, const std::string& a, const MathSpelling& m) {
  switch (f) {
    case UnaryFn::neg: return "(-" + a + ")";
    case UnaryFn::exp: return call(m.exp, a);
    case UnaryFn::log: return call(m.log, a);
    case UnaryFn::sqrt: return call(m.sqrt, a);
    case UnaryFn::rsqrt: return m.rsqrt.empty() ? "(1.0f / " + call(m.sqrt, a) + ")" : call(m.rsqrt, a);
    case UnaryFn::erf: return call(m.erf, a);
    case UnaryFn::tanh: return call(m.tanh, a);
    case UnaryFn::abs: return call(m.abs, a);
    case UnaryFn::sigmoid: return "(1.0f / (1.0f + " + call(m.exp, "-" + a) + "))";
  }
  return a;
}

std::string binary_c(BinaryFn f, const std::string& a, const std::string& b, const MathSpelling& m) {
  switch (f) {
    case BinaryFn::max: return m.max + "(" + a + ", " + b + ")";
    case BinaryFn::min: return m.min + "(" + a + ", " + b + ")";
    case BinaryFn::add:
    case BinaryFn::sub:
    case BinaryFn::mul:
    case BinaryFn::div: return "(" + a + " " + std::string(binary_fn_name(f)) + " " + b + ")";
    default: return "(float)(" + a + " " + std::string(binary_fn_name(f)) + " " + b + ")";  // comparisons
  }
}

}  // namespace

std::string c_float(double v) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
  char buf[48];
  std::snprintf(buf, sizeof buf, "((float)%.17g)", v);
  return buf;
}

std::string stage_value_c(const Expr& e, Reduce r, const MathSpelling& m, const ReadPrinter& read,
                          std::string& skip_unless) {
  auto arg = [&](std::size_t i) { return stage_value_c(e.args[i], r, m, read, skip_unless); };
  switch (e.kind) {
    case Expr::Kind::load: {
      const ElementRead el = read(e.load);
      if (el.inside.empty()) return el.value;
      if (r == Reduce::max || r == Reduce::min) {
        skip_unless = skip_unless.empty() ? el.inside : skip_unless + " && " + el.inside;
        return el.value;
      }
      return "(" + el.inside + " ? " + el.value + " : 0.0f)";
    }
    case Expr::Kind::constant: return c_float(e.value);
    case Expr::Kind::unary: return unary_c(e.unary_fn, arg(0), m);
    case Expr::Kind::binary: {
      const std::string a = arg(0);  // left to right, so that skip conditions keep the reads' order
      return binary_c(e.binary_fn, a, arg(1), m);
    }
    case Expr::Kind::select: {
      const std::string c = arg(0), a = arg(1);
      return "(" + c + " != 0.0f ? " + a + " : " + arg(2) + ")";
    }
    case Expr::Kind::cast: return m.cast(e.cast_to, arg(0));
  }
  return "0.0f";
}

std::string stage_combine_c(Reduce r, const std::string& dst, const std::string& v, const MathSpelling& m) {
  switch (r) {
    case Reduce::sum:
    case Reduce::mean: return dst + " += " + v + ";";
    case Reduce::max: return dst + " = " + m.max + "(" + dst + ", " + v + ");";
    case Reduce::min: return dst + " = " + m.min + "(" + dst + ", " + v + ");";
    case Reduce::none: break;
  }
  return dst + " = " + v + ";";
}

}  // namespace attune::cgen
