// fold_epilogue_test.cpp — a contraction followed by pointwise statements folds into one
// contraction with an expression epilogue that computes the same output on random inputs, and
// the ops that are not of that form stay unfolded.
#include "ir/fold_epilogue.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "ir/buffer.hpp"
#include "ir/evaluator.hpp"
#include "ir/op.hpp"

namespace attune {
namespace {

// The output of `op` evaluated on the buffers make_buffers draws for `like` with `seed`.
Buffer output_of(const Op& op, const Op& like, std::uint64_t seed) {
  auto bufs = make_buffers(like, seed);
  evaluate(op, bufs);
  return bufs[op.tensor_index(op.output.tensor)];
}

void expect_same_output(const Op& op, const Op& folded, std::uint64_t seed) {
  const Buffer want = output_of(op, op, seed), got = output_of(folded, op, seed);
  ASSERT_EQ(want.numel(), got.numel());
  for (std::int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(got.get(i), want.get(i), 1e-5 * std::max(1.0, std::fabs(want.get(i)))) << "element " << i;
}

// fold_epilogue of the spec, checked against the spec's own op on random inputs when it folds.
std::optional<Op> fold_checked(const std::string& text) {
  const Op op = parse_spec(text);
  auto folded = fold_epilogue(op);
  if (folded)
    for (std::uint64_t seed = 1; seed < 5; ++seed) expect_same_output(op, *folded, seed);
  return folded;
}

TEST(FoldEpilogue, TemplatesFoldAndComputeTheSame) {
  const std::vector<std::pair<std::string, std::map<std::string, std::string>>> cases = {
      {"gemm_bias_gelu", {{"M", "5"}, {"N", "7"}, {"K", "9"}}},
      {"gemm_bias_gelu", {{"M", "4"}, {"N", "3"}, {"K", "6"}, {"form", "tanh"}}},
      {"conv2d_bias_add_relu",
       {{"N", "1"}, {"H", "7"}, {"W", "6"}, {"C", "3"}, {"K", "5"}, {"R", "3"}, {"S", "3"}, {"stride", "2"}, {"pad", "1"}}},
  };
  std::uint64_t seed = 1;
  for (const auto& [name, params] : cases) {
    SCOPED_TRACE(name);
    const Op op = instantiate_template(name, params);
    const auto folded = fold_epilogue(op);
    ASSERT_TRUE(folded.has_value());
    EXPECT_FALSE(folded->multi_stage());
    EXPECT_TRUE(folded->epilogue.value.has_value());
    EXPECT_EQ(folded->tensors, op.tensors);  // the kernel's arguments stay the task's
    EXPECT_EQ(folded->input_tensors(), op.input_tensors());
    for (int trial = 0; trial < 3; ++trial) expect_same_output(op, *folded, seed++);
    // Its text form is a contraction with an epilogue line that parses back to it.
    const std::string text = print_spec(*folded);
    EXPECT_NE(text.find("epilogue " + folded->output.str() + " = "), std::string::npos) << text;
    const Op back = parse_spec(text);
    EXPECT_FALSE(back.multi_stage());
    expect_same_output(back, *folded, seed++);
  }
}

TEST(FoldEpilogue, ChainsOfPointwiseStagesWithTheirOwnVariableNames) {
  EXPECT_TRUE(fold_checked("tensor A[3, 4] f32\ntensor B[4, 5] f32\ntensor C[5] f32\ntensor Y[3, 5] f32\n"
                           "tensor T[3, 5] f32\ntensor U[3, 5] f32\n"
                           "T[i, j] += A[i, k] * B[k, j]\n"
                           "U[a, b] = tanh(T[a, b]) * C[b]\n"
                           "Y[x, y] = select(U[x, y] > 0, U[x, y], T[x, y] * 0.5) + exp(-T[x, y])\n")
                  .has_value());
}

TEST(FoldEpilogue, APermutedOutputFoldsIntoAPermutedContraction) {
  // An NHWC convolution whose result is stored NCHW (a model's last block before a Flatten).
  const auto folded = fold_checked(
      "tensor I[1, 5, 6, 3] f32\ntensor W[3, 3, 3, 4] f32\ntensor R[1, 4, 5, 6] f32\ntensor Y[1, 4, 5, 6] f32\n"
      "tensor T[1, 5, 6, 4] f32\ntensor U[1, 5, 6, 4] f32\n"
      "T[n, p, q, k] += I[n, p + r - 1, q + s - 1, c] * W[r, s, c, k]\n"
      "U[a, b, c2, d] = max(T[a, b, c2, d], 0)\n"
      "Y[n, k, p, q] = U[n, p, q, k] + R[n, k, p, q] * T[n, p, q, k]\n");
  ASSERT_TRUE(folded.has_value());
  EXPECT_EQ(folded->output.str(), "Y[n, k, p, q]");
  EXPECT_EQ(folded->spatial_vars(), (std::vector<std::string>{"n", "k", "p", "q"}));
  expect_same_output(parse_spec(print_spec(*folded)), *folded, 9);
}

TEST(FoldEpilogue, OtherFormsStayMultiStage) {
  const std::string decl = "tensor A[3, 4] f32\ntensor B[4, 5] f32\ntensor Y[3, 5] f32\ntensor T[3, 5] f32\n";
  const std::vector<std::string> not_foldable = {
      // a read of the contraction's result away from the output point
      decl + "T[i, j] += A[i, k] * B[k, j]\nY[i, j] = T[i, 4 - j]\n",
      // a reduction after the contraction
      "tensor A[3, 4] f32\ntensor B[4, 5] f32\ntensor Y[3] f32\ntensor T[3, 5] f32\n"
      "T[i, j] += A[i, k] * B[k, j]\nY[i] max= T[i, j]\n",
      // the first stage is not a sum of products
      decl + "T[i, j] = A[i, 0] + B[0, j]\nY[i, j] = T[i, j] * 2\n",
      // reads of the result that tie a variable to two of the contraction's
      "tensor A[3, 4] f32\ntensor B[4, 3] f32\ntensor Y[3, 3] f32\ntensor T[3, 3] f32\n"
      "T[i, j] += A[i, k] * B[k, j]\nY[i, j] = T[i, j] + T[j, i]\n",
      // a stage variable no read of the result ties
      "tensor A[3, 4] f32\ntensor B[4, 5] f32\ntensor C[3, 5] f32\ntensor Y[3, 5] f32\ntensor T[3, 5] f32\n"
      "tensor U[3, 5] f32\nT[i, j] += A[i, k] * B[k, j]\nU[i, j] = C[i, j] * 2\nY[i, j] = T[i, j] + U[i, j]\n",
  };
  for (const auto& text : not_foldable) EXPECT_FALSE(fold_epilogue(parse_spec(text)).has_value()) << text;
  EXPECT_FALSE(fold_epilogue(instantiate_template("softmax", {{"M", "4"}, {"N", "8"}})).has_value());
  EXPECT_FALSE(fold_epilogue(instantiate_template("layernorm", {{"M", "4"}, {"N", "8"}})).has_value());
  EXPECT_FALSE(fold_epilogue(instantiate_template("attention", {{"H", "2"}, {"T", "4"}, {"D", "4"}})).has_value());
  EXPECT_FALSE(fold_epilogue(instantiate_template("gemm", {{"M", "4"}, {"N", "4"}, {"K", "4"}})).has_value());
}

}  // namespace
}  // namespace attune
