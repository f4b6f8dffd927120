// spec_error_test.cpp — malformed specs are refused with attune::Error carrying the exact
// message and its "line:col: " position.
#include <gtest/gtest.h>

#include <sstream>

#include "ir/error.hpp"
#include "ir/op.hpp"

namespace attune {
namespace {

const std::string kRows = "tensor X[4, 8] f32\ntensor Y[4, 8] f32\n";
const std::string kDecl = "tensor A[4, 8] f32\ntensor B[8, 5] f32\ntensor C[4, 5] f32\n";

struct BadSpec {
  std::string text;
  std::string message;
};

const std::vector<BadSpec> kBad = {
    {kDecl + "C[m, n] += A[m, k] $ B[k, n]\n", "4:20: unexpected character '$'"},
    {kDecl + "C[m, n] += A[m, k * B[k, n]\n", "4:19: index is not affine: 'k' * 'B' multiplies two variables"},
    {kDecl + "C[m, n] += A[m, k] * B[k, n\n", "4:28: expected ',' or ']' in the indices of 'B', found end of line"},
    {"tensor A[4, 8] f64\n", "1:16: unknown dtype 'f64' (expected f32, f16, i8, u8 or i32)"},
    {"tensor A[4, 8] f32 const\ntensor B[8, 5] f32\ntensor C[4, 5] f32 const\nC[m, n] += A[m, k] * B[k, n]\n",
     "4:1: tensor 'C' is declared const (at 3:8) but this statement writes it"},
    {kRows + "tensor M[4] f32 const\nM[i] max= X[i, j]\nY[i, j] = X[i, j] - M[i]\n",
     "4:1: tensor 'M' is declared const (at 3:8) but this statement writes it"},
    {"tensor A[4, 8] f32 konst\n", "1:20: expected end of statement, found 'konst'"},
    {kDecl + "C[m, n] += A[m, k] * D[k, n]\n", "4:22: undeclared tensor 'D'"},
    {kDecl + "C[m, n] += A[m, k, 0] * B[k, n]\n", "4:12: tensor 'A' has rank 2 but is indexed with 3 indices"},
    {kDecl + "tensor B[2] f32\n", "4:8: duplicate tensor 'B' (first declared at 2:8)"},
    {"tensor A[4, 0] f32\n", "1:13: dimension 1 of 'A' must be positive, got 0"},
    {"tensor A[4, -2] f32\n", "1:13: dimension 1 of 'A' must be positive, got -2"},
    {kDecl, "4:1: missing compute statement (such as C[m, n] += A[m, k] * B[k, n])"},
    {kDecl + "C[m, n] += A[m, k] * B[k, n]; C[m, n] += A[m, k] * B[k, n]\n",
     "4:31: tensor 'C' is written twice (first at 4:1); each tensor is written by one statement"},
    {kDecl + "C[m, n] += A[m, k] * C[k, n]\n", "4:22: tensor 'C' is both the output and an input"},
    {kDecl + "tensor Bias[5, 1] f32\nC[m, n] += A[m, k] * B[k, n]\nepilogue bias Bias[n]\n",
     "6:15: tensor 'Bias' has rank 2 but is indexed with 1 indices"},
    {"tensor A[4] i8\ntensor B[4] f32\ntensor C[4] i32\nC[i] += A[i] * B[i]\n",
     "4:1: unsupported dtypes i8 * f32 -> i32 (allowed: f32*f32->f32, f16*f16->f32 or f16, i8*i8->i32, "
     "u8*i8->i32)"},
    {"tensor A[4] i8\ntensor B[4] i8\ntensor C[4] f32\nC[i] += A[i] * B[i]\n",
     "4:1: unsupported dtypes i8 * i8 -> f32 (allowed: f32*f32->f32, f16*f16->f32 or f16, i8*i8->i32, "
     "u8*i8->i32)"},
    {"tensor A[8] f32\ntensor O[4] f32\nO[(p)/2] += A[p]\n", "3:3: output index '(p)/2' must not divide"},
    {"tensor A[4] f32\ntensor B[5] f32\ntensor O[1] f32\nO[0] += A[k] * B[k]\n",
     "4:11: extent of 'k' ambiguous (A dim 0 is 4, B dim 0 is 5); declare it with 'var k < N'"},
    {"tensor A[8] f32\ntensor O[8] f32\nO[g*4 + k] += A[k]\n",
     "3:3: no extent for variable 'g': it indexes no tensor dimension alone; declare it with 'var g < N'"},
    {"tensor A[8] f32\ntensor O[4] f32\nO[p + 1] += A[p]\n",
     "3:3: output index 'p + 1' ranges over [1, 8], outside dimension 0 of 'O' (size 4)"},
    {"tensor A[8] f32\ntensor O[8] f32\nO[p] += A[p + (r)/2]\n",
     "3:13: a division must enclose the whole index, as in (p + 1 - r)/2"},
    {"tensor A[8] f32\ntensor O[8] f32\nO[p] += A[(p)/0]\n", "3:15: division by zero"},
    {"tensor A[8] f32\ntensor O[8] f32\nO[p] := A[p]\n", "3:6: unexpected character ':'"},
    {"tensor A[8] f32\ntensor O[8] f32\nO[p] += A[p]\nepilogue gelu\n",
     "4:10: unknown epilogue 'gelu' (expected bias, relu or OUT[...] = expression)"},
    {"tensor A[8] f32\ntensor O[8] f32\nO[p] += A[p]\nepilogue relu; epilogue relu\n",
     "4:25: duplicate 'epilogue relu' (the first is at 4:1)"},
    {"tensor A[8] f32\ntensor O[8] f32\ntensor X[8] f32\nO[p] += A[p]\n", "3:8: tensor 'X' is declared but not used"},
    {"tensor A[8] f32\ntensor O[8] f32\nvar z < 3\nO[p] += A[p]\n", "3:5: variable 'z' is declared but not used"},
    {"tensor A[8] f32\ntensor O[8] f32\ntensor Bias[8] f32\nO[p] += A[p + r]\nepilogue bias Bias[r]\n",
     "5:20: bias index uses 'r', which does not index the output"},
    {"tensor A[8] f32\ntensor O[8] f32\ntensor Bias[8] i32\nO[p] += A[p]\nepilogue bias Bias[p]\n",
     "5:15: bias 'Bias' is i32 but the output 'O' is f32; they must match"},
    {"tensor A[8] f32 extra\n", "1:17: expected end of statement, found 'extra'"},
    {"tensr A[8] f32\n",
     "1:1: unknown statement 'tensr' (expected op, tensor, var, epilogue or a compute statement such as "
     "C[m, n] += A[m, k] * B[k, n])"},
    {"tensor A[8 f32\n", "1:12: expected ',' or ']' in the shape of 'A', found 'f32'"},
    {"op\n", "1:3: expected a name after 'op', found end of line"},
    {"  # comment\n\ttensor A[99999999999] f32\n", "2:11: integer 99999999999 is too large (at most 2147483647)"},
    {"tensor A[8] f32\ntensor O[8] f32\nO[p] += A[p*q]\n",
     "3:12: index is not affine: 'p' * 'q' multiplies two variables"},
    {"tensor A[8] f32\ntensor O[8] f32\nO[p] += A[]\n", "3:11: expected an index expression, found ']'"},
    {"tensor A[8] f32\ntensor O[8] f32\nvar p < 0\nO[p] += A[p]\n", "3:9: extent of 'p' must be positive, got 0"},
    {"tensor A[8] f32\ntensor O[8] f32\nO[p] += A[((p + 1)/2)/2]\n",
     "3:22: nested division; an index may divide only once"},
    // Multi-stage ops (ir/expr.hpp).
    {kRows + "tensor M[4] f32\nY[i, j] = X[i, j] - M[i]\nM[i] max= X[i, j]\n",
     "4:21: 'M' is read before the statement that writes it (at 5:1)"},
    {kRows + "Y[i, j] = Y[i, j] + X[i, j]\n",
     "3:11: the statement reads 'Y', which it writes: a cycle (compute the value into another tensor first)"},
    {kRows + "tensor T[4, 8] f32\nT[i, j] = X[i, j]\nY[i, j] = X[i, j]\n",
     "4:1: intermediate 'T' is written but never read (the op's output is the tensor the last statement writes, 'Y')"},
    {kRows + "tensor T[4] f32\nT[i] max= X[i, j]\nT[i] min= X[i, j]\nY[i, j] = T[i]\n",
     "5:1: tensor 'T' is written twice (first at 4:1); each tensor is written by one statement"},
    {"tensor X[4, 8] f32\ntensor Y[4] f32\nY[i] = X[i, j]\n",
     "3:13: 'j' does not index the output Y[i]: a '=' statement cannot reduce (write +=, max=, min= or mean=)"},
    {kRows + "Y[i, j] max= X[i, j]\n",
     "3:9: 'max=' reduces over no variable: every variable of the statement indexes the output Y[i, j] "
     "(write '=' for an elementwise statement)"},
    {"tensor X[4, 8] f32\ntensor Z[4, 8] i32\ntensor Y[4, 8] f32\nY[i, j] = X[i, j] + Z[i, j]\n",
     "4:19: '+' mixes f32 and i32; convert one side with a cast such as f32(...)"},
    {"tensor X[4, 8] f32\ntensor Y[4, 8] i32\nY[i, j] = X[i, j] * 2\n",
     "3:9: the statement stores f32 into i32 'Y'; convert the value with i32(...)"},
    {"tensor X[4, 8] i32\ntensor Y[4, 8] i32\nY[i, j] = exp(X[i, j])\n",
     "3:11: 'exp' needs a floating-point value, got i32; convert it with f32(...)"},
    {kRows + "Y[i, j] = foo(X[i, j])\n",
     "3:11: unknown function 'foo' (expected exp, log, sqrt, rsqrt, erf, tanh, abs, neg, sigmoid, max, min, relu, "
     "clip, select or a cast such as f32)"},
    {kRows + "Y[i, j] = max(X[i, j])\n", "3:11: 'max' takes 2 arguments, got 1"},
    {kRows + "Y[i, j] = i * 2\n",
     "3:11: 'i' is not a value: read a tensor (i[...]), call a function (exp(x)) or write a number"},
    {kRows + "Y[i, j] =\n",
     "3:10: expected a value (a tensor read, a number or a call such as exp(x)), found end of line"},
    {kRows + "Y[i, j] *= X[i, j]\n", "3:9: expected '=', '+=', 'max=', 'min=' or 'mean=' after Y[i, j], found '*'"},
    {kRows + "Y[i, j] = X[i, j] * 1.5e\n", "3:21: malformed number: exponent without digits"},
    {kRows + "Y[i, j] = select(X[i, j] > 0, X[i, j])\n", "3:11: 'select' takes 3 arguments, got 2"},
    {kRows + "Y[i, j] = X[i, j] + Z[i, j]\n", "3:21: undeclared tensor 'Z'"},
    {kRows + "tensor T[4] f32\nT[i] += X[i, j]\nY[i, j] = X[i, j] / T[i]\nepilogue relu\n",
     "6:1: 'epilogue' lines apply to a single contraction (C[m, n] += A[m, k] * B[k, n]); with other statements "
     "write the bias and relu as a further statement, e.g. Y[m, n] = relu(C[m, n] + Bias[n])"},
    // epilogue OUT[...] = expression
    {kDecl + "C[m, n] += A[m, k] * B[k, n]\nepilogue C[n, m] = C[m, n]\n",
     "5:10: the epilogue expression writes C[n, m]; it must write the element C[m, n] the contraction computes"},
    {kDecl + "C[m, n] += A[m, k] * B[k, n]\nepilogue C[m, n] = C[m, 0] * 2\n",
     "5:20: the epilogue reads the output only at the element it writes (C[m, n])"},
    {kDecl + "C[m, n] += A[m, k] * B[k, n]\nepilogue C[m, n] = C[m, n] + A[m, k]\n",
     "5:35: epilogue index uses 'k', which does not index the output"},
    {kDecl + "C[m, n] += A[m, k] * B[k, n]\nepilogue C[m, n] = C[m, n]\nepilogue C[m, n] = C[m, n]\n",
     "6:1: duplicate epilogue expression (the first is at 5:10)"},
    {kDecl + "C[m, n] += A[m, k] * B[k, n]\nepilogue C[m, n] + C[m, n]\n",
     "5:18: expected '=' after the epilogue's C[m, n], found '+'"},
    {"tensor A[4] i8\ntensor B[4] i8\ntensor C[4] i32\nC[i] += A[i] * B[i]\nepilogue C[i] = C[i]\n",
     "5:10: an epilogue expression needs an f32 output; 'C' is i32"},
    {"tensor X[4, 8] f32\ntensor Y[4] f32\ntensor U[3] f32\nY[i] += X[i, j]\n",
     "3:8: tensor 'U' is declared but not used"},
};

TEST(SpecErrors, ExactMessages) {
  for (const auto& b : kBad) {
    SCOPED_TRACE(b.text);
    try {
      parse_spec(b.text);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), b.message);
    }
  }
}

TEST(SpecErrors, AllowedDtypeCombinations) {
  for (const char* combo : {"f32 f32 f32", "f16 f16 f32", "f16 f16 f16", "i8 i8 i32", "u8 i8 i32", "i8 u8 i32"}) {
    std::string a, b, c;
    std::istringstream(combo) >> a >> b >> c;
    std::string text = "tensor A[4] " + a + "\ntensor B[4] " + b + "\ntensor C[4] " + c + "\nC[i] += A[i] * B[i]\n";
    EXPECT_NO_THROW(parse_spec(text)) << combo;
  }
  EXPECT_THROW(parse_spec("tensor A[4] u8\ntensor B[4] u8\ntensor C[4] i32\nC[i] += A[i] * B[i]\n"), Error);
}

}  // namespace
}  // namespace attune
