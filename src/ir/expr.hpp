// ir/expr.hpp — the statements of multi-stage ops: value expressions and reductions.
//
// A contraction (op.hpp's Op::output += product of Op::inputs) covers GEMM and convolutions.
// Everything else a network computes — softmax, normalisations, pooling, activations, residual
// adds, attention — is a sequence of Stages, each
//
//   OUT[idx] = expr          (every variable indexes OUT)
//   OUT[idx] += expr         sum over the variables that do not index OUT (also max=, min=, mean=)
//
// where expr is a tree of tensor reads, constants and elementwise math. Reads outside a tensor
// (or at an inexact division) are zero, as in contractions, except in a max= or min= stage,
// where a domain point with such a read contributes nothing (pooling's padding).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/access.hpp"

namespace attune {

enum class UnaryFn : std::uint8_t { neg, exp, log, sqrt, rsqrt, erf, tanh, abs, sigmoid };
// Comparisons yield 1 or 0 in their operands' type (used as select's condition).
enum class BinaryFn : std::uint8_t { add, sub, mul, div, max, min, lt, le, gt, ge, eq, ne };
enum class Reduce : std::uint8_t { none, sum, max, min, mean };

std::string_view unary_fn_name(UnaryFn f);    // "exp"
std::string_view binary_fn_name(BinaryFn f);  // "+", "max", "<"
std::string_view reduce_name(Reduce r);       // "=", "+=", "max=", "min=", "mean="
bool is_comparison(BinaryFn f);
bool is_infix(BinaryFn f);  // printed between its operands
// The shortest decimal text that reads back as the same double ("0.5", "1e-05", "inf"): how
// specs print constants (libgen reads template parameters back with it).
std::string number_text(double v);

struct Expr {
  enum class Kind : std::uint8_t { load, constant, unary, binary, select, cast };
  Kind kind = Kind::constant;
  Access load;       // load
  double value = 0;  // constant
  UnaryFn unary_fn = UnaryFn::neg;
  BinaryFn binary_fn = BinaryFn::add;
  DType cast_to = DType::f32;  // cast
  std::vector<Expr> args;      // unary: 1, binary: 2, select: cond, then, else; cast: 1

  static Expr read(Access a);
  static Expr constant(double v);
  static Expr unary(UnaryFn f, Expr a);
  static Expr binary(BinaryFn f, Expr a, Expr b);
  static Expr select(Expr cond, Expr then, Expr otherwise);
  static Expr cast(DType t, Expr a);

  std::string str() const;  // "exp(X[i, j] - M[i])"; parse_spec reads it back
  bool operator==(const Expr&) const = default;
};

// Calls f(Access&) / f(const Access&) on every read of `e`, left to right.
template <class E, class F>
void for_each_read(E& e, F&& f) {
  if (e.kind == Expr::Kind::load) f(e.load);
  for (auto& a : e.args) for_each_read(a, f);
}

// The value a reduction starts from: 0, -inf or +inf.
double reduce_identity(Reduce r);

struct Stage {
  Access out;  // the tensor element written
  Reduce reduce = Reduce::none;
  Expr value;
  std::vector<IterVar> vars;  // variables indexing `out` (in order of use), then the reduced ones

  // Points of the reduced variables' domain (1 for `=`): mean= divides by it.
  std::int64_t reduced_points() const;
  std::int64_t domain_points() const;  // product of every variable's extent
  std::string str() const;             // "S[i] += exp(X[i, j] - M[i])"
  bool operator==(const Stage&) const = default;
};

}  // namespace attune
