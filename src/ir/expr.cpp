// expr.cpp — names, printing and builders of the expressions and stages of multi-stage ops.
#include "ir/expr.hpp"

#include <cmath>
#include <cstring>
#include <cstdio>
#include <limits>

#include "ir/error.hpp"

namespace attune {

std::string_view unary_fn_name(UnaryFn f) {
  switch (f) {
    case UnaryFn::neg: return "neg";
    case UnaryFn::exp: return "exp";
    case UnaryFn::log: return "log";
    case UnaryFn::sqrt: return "sqrt";
    case UnaryFn::rsqrt: return "rsqrt";
    case UnaryFn::erf: return "erf";
    case UnaryFn::tanh: return "tanh";
    case UnaryFn::abs: return "abs";
    case UnaryFn::sigmoid: return "sigmoid";
  }
  return "?";
}

std::string_view binary_fn_name(BinaryFn f) {
  switch (f) {
    case BinaryFn::add: return "+";
    case BinaryFn::sub: return "-";
    case BinaryFn::mul: return "*";
    case BinaryFn::div: return "/";
    case BinaryFn::max: return "max";
    case BinaryFn::min: return "min";
    case BinaryFn::lt: return "<";
    case BinaryFn::le: return "<=";
    case BinaryFn::gt: return ">";
    case BinaryFn::ge: return ">=";
    case BinaryFn::eq: return "==";
    case BinaryFn::ne: return "!=";
  }
  return "?";
}

std::string_view reduce_name(Reduce r) {
  switch (r) {
    case Reduce::none: return "=";
    case Reduce::sum: return "+=";
    case Reduce::max: return "max=";
    case Reduce::min: return "min=";
    case Reduce::mean: return "mean=";
  }
  return "?";
}

bool is_comparison(BinaryFn f) { return f >= BinaryFn::lt; }
bool is_infix(BinaryFn f) { return f != BinaryFn::max && f != BinaryFn::min; }

double reduce_identity(Reduce r) {
  switch (r) {
    case Reduce::max: return -std::numeric_limits<double>::infinity();
    case Reduce::min: return std::numeric_limits<double>::infinity();
    default: return 0;
  }
}

Expr Expr::read(Access a) {
  Expr e;
  e.kind = Kind::load;
  e.load = std::move(a);
  return e;
}

Expr Expr::constant(double v) {
  Expr e;
  e.kind = Kind::constant;
  e.value = v;
  return e;
}

Expr Expr::unary(UnaryFn f, Expr a) {
  Expr e;
  e.kind = Kind::unary;
  e.unary_fn = f;
  e.args.push_back(std::move(a));
  return e;
}

Expr Expr::binary(BinaryFn f, Expr a, Expr b) {
  Expr e;
  e.kind = Kind::binary;
  e.binary_fn = f;
  e.args.push_back(std::move(a));
  e.args.push_back(std::move(b));
  return e;
}

Expr Expr::select(Expr cond, Expr then, Expr otherwise) {
  Expr e;
  e.kind = Kind::select;
  e.args.push_back(std::move(cond));
  e.args.push_back(std::move(then));
  e.args.push_back(std::move(otherwise));
  return e;
}

Expr Expr::cast(DType t, Expr a) {
  Expr e;
  e.kind = Kind::cast;
  e.cast_to = t;
  e.args.push_back(std::move(a));
  return e;
}

std::string number_text(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  // A whole number past the integer literal's range must read back as a real: exponent form
  // (fuzz/corpus/spec_parser/regression-big-whole-number.spec).
  if (std::strpbrk(buf, ".e") == nullptr && std::fabs(v) > 2147483647.0)
    for (int digits = 1; digits <= 17; ++digits) {
      std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
      if (std::strtod(buf, nullptr) == v) break;
    }
  return buf;
}

namespace {

// Binding strength for printing with the fewest parentheses that parse back the same.
int precedence(const Expr& e) {
  if (e.kind != Expr::Kind::binary || !is_infix(e.binary_fn)) return 4;
  switch (e.binary_fn) {
    case BinaryFn::mul:
    case BinaryFn::div: return 3;
    case BinaryFn::add:
    case BinaryFn::sub: return 2;
    default: return 1;  // comparisons
  }
}

}  // namespace

std::string Expr::str() const {
  switch (kind) {
    case Kind::load: return load.str();
    // A negative number needs no parentheses: unary minus binds tighter than every operator, and
    // each one costs the reader a level of nesting.
    case Kind::constant: return number_text(value);
    case Kind::unary: return std::string(unary_fn_name(unary_fn)) + "(" + args[0].str() + ")";
    case Kind::select: return "select(" + args[0].str() + ", " + args[1].str() + ", " + args[2].str() + ")";
    case Kind::cast: return std::string(dtype_name(cast_to)) + "(" + args[0].str() + ")";
    case Kind::binary: break;
  }
  if (!is_infix(binary_fn))
    return std::string(binary_fn_name(binary_fn)) + "(" + args[0].str() + ", " + args[1].str() + ")";
  const int p = precedence(*this);
  // Left-associative: the right operand needs parentheses at equal strength.
  std::string l = args[0].str(), r = args[1].str();
  if (precedence(args[0]) < p) l = "(" + l + ")";
  if (precedence(args[1]) <= p) r = "(" + r + ")";
  return l + " " + std::string(binary_fn_name(binary_fn)) + " " + r;
}

std::int64_t Stage::reduced_points() const {
  std::int64_t n = 1;
  for (const auto& v : vars)
    if (v.reduction) n *= v.extent;
  return n;
}

std::int64_t Stage::domain_points() const {
  std::int64_t n = 1;
  for (const auto& v : vars) n *= v.extent;
  return n;
}

std::string Stage::str() const { return out.str() + " " + std::string(reduce_name(reduce)) + " " + value.str(); }

}  // namespace attune
