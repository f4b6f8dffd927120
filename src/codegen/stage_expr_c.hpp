// codegen/stage_expr_c.hpp — the one printer of multi-stage statements (ir/expr.hpp) as C float
// expressions, shared by the CPU backend (cpu/c_compute.cpp) and the CUDA one
// (cuda/stage_kernels.cpp).
//
// Why shared: the backends differ only in how math is spelled (the CPU's branch-free attune_exp
// so that `omp simd` loops vectorise, CUDA's expf) and how a tensor element is addressed (each
// prints its own indices). The tree walk, the rule for reads outside a tensor (zero, except in
// max=/min= statements, where the point is skipped, as stage_evaluator.cpp does) and how a
// reduction combines are written once here, so the two backends cannot drift apart.
#pragma once

#include <functional>
#include <string>

#include "ir/expr.hpp"

namespace attune::cgen {

// A double as a C float expression: "((float)0.5)", "INFINITY", "(-INFINITY)", "NAN".
std::string c_float(double v);

// How a backend spells elementwise math. Unary functions print as name(x), max/min as
// name(a, b); an empty rsqrt prints as (1.0f / sqrt(x)).
struct MathSpelling {
  std::string exp, log, sqrt, rsqrt, erf, tanh, abs, max, min;
  // A float value converted to `to` and back to float, as a store into a `to` tensor would.
  std::function<std::string(DType to, const std::string& value)> cast;
};

// One tensor element as the backend reads it.
struct ElementRead {
  std::string value;   // the element as a float expression
  std::string inside;  // when the read is inside its tensor (and divides exactly); "" when always
};
using ReadPrinter = std::function<ElementRead(const Access&)>;

// `e` as a float expression of a statement reducing with `r`. A read that may fall outside its
// tensor reads 0.0f, except when `r` is max or min: then its condition is and-ed into
// `skip_unless` and the caller guards the whole update with it.
std::string stage_value_c(const Expr& e, Reduce r, const MathSpelling& m, const ReadPrinter& read,
                          std::string& skip_unless);

// The statement that combines `v` into `dst` as `r` says ("dst += v;", "dst = max(dst, v);",
// "dst = v;" for none). mean= sums here; its division comes after the reduction.
std::string stage_combine_c(Reduce r, const std::string& dst, const std::string& v, const MathSpelling& m);

}  // namespace attune::cgen
