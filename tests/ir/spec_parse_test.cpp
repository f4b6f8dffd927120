// spec_parse_test.cpp — parse_spec on valid specs: inference of variables and extents,
// normalisation of index expressions, and the printer's canonical form.
#include <gtest/gtest.h>

#include "ir/op.hpp"

namespace attune {
namespace {

TEST(SpecParse, GemmInfersVarsAndExtents) {
  Op op =
      parse_spec("op g\ntensor A[4, 8] f32; tensor B[8, 5] f32\ntensor C[4, 5] f32\nC[m, n] += A[m, k] * B[k, n]\n");
  EXPECT_EQ(op.name, "g");
  ASSERT_EQ(op.vars.size(), 3u);
  EXPECT_EQ(op.vars[0], (IterVar{"m", 4, false}));
  EXPECT_EQ(op.vars[1], (IterVar{"n", 5, false}));
  EXPECT_EQ(op.vars[2], (IterVar{"k", 8, true}));
  EXPECT_EQ(op.macs(), 160);
  EXPECT_EQ(op.input_tensors(), (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(parse_spec(print_spec(op)), op);
}

TEST(SpecParse, ConvIndexNormalisation) {
  Op op = parse_spec(
      "tensor I[1, 8, 8, 3] f32\ntensor W[3, 3, 3, 4] f32\ntensor O[1, 4, 4, 4] f32\n"
      "O[n, p, q, k] += I[n, 2*p + r - 1 + 0*c, q*2 + s + (-1), c] * W[r, s, c, k]  # comment\n");
  EXPECT_EQ(op.inputs[0].index[1].str(), "p*2 + r - 1");
  EXPECT_EQ(op.inputs[0].index[2].str(), "q*2 + s - 1");
  EXPECT_EQ(op.reduction_vars(), (std::vector<std::string>{"r", "s", "c"}));
  EXPECT_EQ(print_spec(op),
            "tensor I[1, 8, 8, 3] f32\ntensor W[3, 3, 3, 4] f32\ntensor O[1, 4, 4, 4] f32\n"
            "O[n, p, q, k] += I[n, p*2 + r - 1, q*2 + s - 1, c] * W[r, s, c, k]\n");
  EXPECT_EQ(parse_spec(print_spec(op)), op);
}

TEST(SpecParse, DivisionAndDeclaredVars) {
  Op op = parse_spec(
      "tensor I[4] f32; tensor W[3] f32; tensor O[8] f32; tensor Bias[8] f32\n"
      "O[p] += I[(p + 1 - r)/2] * W[r]\nepilogue bias Bias[p]\nepilogue relu");
  EXPECT_EQ(op.inputs[0].index[0].divisor, 2);
  EXPECT_EQ(op.inputs[0].index[0].str(), "(p - r + 1)/2");
  EXPECT_TRUE(op.epilogue.relu);
  EXPECT_EQ(parse_spec(print_spec(op)), op);

  Op g = parse_spec("var g < 2\nvar k < 3\ntensor A[6] f32\ntensor O[6] f32\nO[g*3 + k] += A[k + 3*g]");
  EXPECT_EQ(g.vars[0], (IterVar{"g", 2, false}));
  EXPECT_EQ(g.vars[1], (IterVar{"k", 3, false}));
  EXPECT_EQ(parse_spec(print_spec(g)), g);
  EXPECT_NE(print_spec(g).find("var g < 2\nvar k < 3\n"), std::string::npos);
}

TEST(SpecParse, CanonicalSpecDropsLabel) {
  Op op = parse_spec("op x.y-1\ntensor A[2] f32; tensor O[2] f32; O[i] += A[i]");
  EXPECT_EQ(op.name, "x.y-1");
  EXPECT_EQ(canonical_spec(op), "tensor A[2] f32\ntensor O[2] f32\nO[i] += A[i]\n");
}

// `const` marks an input whose values stay fixed between calls (a model's weight): it is part of
// the op (so of its hash) and survives printing.
TEST(SpecParse, ConstInputsArePartOfTheOp) {
  const std::string gemm = "tensor A[4, 8] f32\ntensor B[8, 5] f32 const\ntensor C[4, 5] f32\nC[m, n] += A[m, k] * B[k, n]\n";
  const Op op = parse_spec(gemm);
  EXPECT_FALSE(op.tensors[0].constant);
  EXPECT_TRUE(op.tensors[1].constant);
  EXPECT_FALSE(op.tensors[2].constant);
  EXPECT_EQ(canonical_spec(op), gemm);
  EXPECT_EQ(parse_spec(print_spec(op)), op);
  Op plain = op;
  plain.tensors[1].constant = false;
  EXPECT_NE(canonical_spec(plain), canonical_spec(op));

  const Op stages = parse_spec(
      "tensor X[4, 8] f32\ntensor G[8] f32 const\ntensor Y[4, 8] f32\ntensor M[4] f32\n"
      "M[i] max= X[i, j]\nY[i, j] = (X[i, j] - M[i]) * G[j]\n");
  ASSERT_TRUE(stages.multi_stage());
  EXPECT_TRUE(stages.tensors[1].constant);
  EXPECT_EQ(parse_spec(print_spec(stages)), stages);
}

}  // namespace
}  // namespace attune
