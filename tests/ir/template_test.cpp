// template_test.cpp — every template instantiates, prints and re-parses to an equal Op, with
// the documented tensor names, variable structure and output sizes; bad parameters are refused
// with a message naming the template and the parameter.
#include <gtest/gtest.h>

#include "ir/error.hpp"
#include "ir/op.hpp"

namespace attune {
namespace {

using Params = std::map<std::string, std::string>;

void expect_round_trip(const Op& op) {
  std::string text = print_spec(op);
  Op again = parse_spec(text);
  EXPECT_EQ(again, op) << text;
  EXPECT_EQ(print_spec(again), text);
}

std::vector<std::string> names(const std::vector<IterVar>& vs, bool reduction) {
  std::vector<std::string> r;
  for (const auto& v : vs)
    if (v.reduction == reduction) r.push_back(v.name);
  return r;
}

struct Case {
  std::string tmpl;
  Params params;
};

const std::vector<Case> kCases = {
    // clang-format off
    // clang-format off
    {"gemm", {{"M", "8"}, {"N", "16"}, {"K", "4"}}},
    {"gemm", {{"M", "8"}, {"N", "16"}, {"K", "4"}, {"dtype", "int8"}, {"epilogue", "bias_relu"}}},
    {"gemm", {{"M", "3"}, {"N", "5"}, {"K", "7"}, {"dtype", "f16"}, {"epilogue", "relu"}}},
    {"batch_matmul", {{"B", "2"}, {"M", "4"}, {"N", "6"}, {"K", "8"}, {"epilogue", "bias"}}},
    {"gemv", {{"M", "9"}, {"K", "11"}, {"epilogue", "bias"}}},
    {"conv1d", {{"N", "1"}, {"L", "16"}, {"C", "4"}, {"K", "8"}, {"R", "3"}, {"stride", "2"}, {"pad", "1"}}},
    {"conv1d", {{"N", "2"}, {"L", "16"}, {"C", "4"}, {"K", "8"}, {"R", "3"}, {"dilation", "2"}, {"layout", "NCL"}}},
    {"conv2d", {{"N", "1"}, {"H", "9"}, {"W", "9"}, {"C", "4"}, {"K", "8"}, {"R", "3"}, {"S", "3"}}},
    {"conv2d", {{"N", "1"}, {"H", "9"}, {"W", "7"}, {"C", "8"}, {"K", "12"}, {"R", "3"}, {"S", "3"},
                {"stride", "2"}, {"pad", "1"}, {"groups", "4"}, {"layout", "NHWC"}}},
    {"conv2d", {{"N", "1"}, {"H", "9"}, {"W", "9"}, {"C", "8"}, {"K", "8"}, {"R", "3"}, {"S", "3"},
                {"groups", "2"}, {"dilation", "2"}, {"pad", "2"}, {"layout", "NCHW"}, {"epilogue", "bias_relu"}}},
    {"conv2d", {{"N", "1"}, {"H", "6"}, {"W", "6"}, {"C", "4"}, {"K", "4"}, {"R", "1"}, {"S", "1"},
                {"dtype", "int8"}, {"epilogue", "bias"}}},
    {"depthwise_conv2d", {{"N", "1"}, {"H", "8"}, {"W", "8"}, {"C", "4"}, {"R", "3"}, {"S", "3"}, {"pad", "1"}}},
    {"depthwise_conv2d", {{"N", "1"}, {"H", "8"}, {"W", "8"}, {"C", "4"}, {"R", "3"}, {"S", "3"}, {"stride", "2"},
                          {"layout", "NCHW"}, {"dtype", "f16"}}},
    {"conv3d", {{"N", "1"}, {"D", "4"}, {"H", "5"}, {"W", "5"}, {"C", "2"}, {"K", "3"}, {"T", "2"}, {"R", "3"},
                {"S", "3"}, {"pad", "1"}}},
    {"conv3d", {{"N", "1"}, {"D", "4"}, {"H", "5"}, {"W", "5"}, {"C", "2"}, {"K", "3"}, {"T", "2"}, {"R", "3"},
                {"S", "3"}, {"stride", "2"}, {"layout", "NCDHW"}}},
    {"conv2d_transpose", {{"N", "1"}, {"H", "4"}, {"W", "4"}, {"C", "3"}, {"K", "2"}, {"R", "4"}, {"S", "4"},
                          {"stride", "2"}, {"pad", "1"}}},
    {"conv2d_transpose", {{"N", "1"}, {"H", "4"}, {"W", "5"}, {"C", "3"}, {"K", "2"}, {"R", "3"}, {"S", "3"},
                          {"layout", "NCHW"}, {"epilogue", "bias"}}},
    {"conv2d_capsule", {{"N", "1"}, {"H", "8"}, {"W", "8"}, {"C", "2"}, {"K", "3"}, {"R", "3"}, {"S", "3"},
                        {"stride", "2"}, {"pad", "1"}, {"capsule", "2"}}},
    {"softmax", {{"B", "2"}, {"M", "3"}, {"N", "5"}}},
    {"log_softmax", {{"M", "3"}, {"N", "5"}}},
    {"layernorm", {{"M", "3"}, {"N", "8"}, {"eps", "0.001"}}},
    {"rmsnorm", {{"M", "3"}, {"N", "8"}}},
    {"batchnorm", {{"N", "1"}, {"C", "3"}, {"H", "4"}, {"W", "5"}, {"layout", "NHWC"}}},
    {"gelu", {{"M", "2"}, {"N", "7"}, {"form", "tanh"}}},
    {"clip", {{"M", "2"}, {"N", "7"}, {"lo", "-1.5"}, {"hi", "2"}}},
    {"residual_add", {{"M", "2"}, {"N", "7"}, {"relu", "1"}}},
    {"maxpool2d", {{"N", "1"}, {"C", "2"}, {"H", "7"}, {"W", "6"}, {"R", "3"}, {"S", "3"}, {"stride", "2"},
                   {"pad", "1"}}},
    {"avgpool2d", {{"N", "1"}, {"C", "2"}, {"H", "7"}, {"W", "6"}, {"R", "2"}, {"S", "2"}, {"stride", "2"},
                   {"layout", "NHWC"}}},
    {"global_avgpool", {{"N", "2"}, {"C", "3"}, {"H", "4"}, {"W", "4"}}},
    {"conv2d_bias_add_relu", {{"N", "1"}, {"H", "6"}, {"W", "6"}, {"C", "3"}, {"K", "4"}, {"R", "3"}, {"S", "3"},
                              {"pad", "1"}}},
    {"gemm_bias_gelu", {{"M", "3"}, {"N", "4"}, {"K", "5"}}},
    {"attention", {{"H", "2"}, {"T", "4"}, {"D", "3"}}},
};
// clang-format on
// clang-format on

TEST(Templates, EveryCaseRoundTrips) {
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.tmpl);
    Op op = instantiate_template(c.tmpl, c.params);
    EXPECT_EQ(op.name, c.tmpl);
    expect_round_trip(op);
  }
}

TEST(Templates, EveryTemplateIsCovered) {
  for (const auto& t : list_templates()) {
    bool found = false;
    for (const auto& c : kCases) found = found || c.tmpl == t.name;
    EXPECT_TRUE(found) << t.name;
  }
}

TEST(Templates, GemmText) {
  Op op = instantiate_template("gemm", {{"M", "4"}, {"N", "5"}, {"K", "6"}, {"epilogue", "bias_relu"}});
  EXPECT_EQ(print_spec(op),
            "op gemm\ntensor A[4, 6] f32\ntensor B[6, 5] f32\ntensor C[4, 5] f32\ntensor Bias[5] f32\n"
            "C[m, n] += A[m, k] * B[k, n]\nepilogue bias Bias[n]\nepilogue relu\n");
}

TEST(Templates, Conv2dNchwHasNoGroupVariable) {
  Op op = instantiate_template(
      "conv2d", {{"N", "1"}, {"H", "56"}, {"W", "56"}, {"C", "64"}, {"K", "64"}, {"R", "3"}, {"S", "3"}, {"pad", "1"}});
  EXPECT_EQ(names(op.vars, false), (std::vector<std::string>{"n", "k", "p", "q"}));
  EXPECT_EQ(names(op.vars, true), (std::vector<std::string>{"c", "r", "s"}));
  EXPECT_EQ(op.tensor("O").shape, (std::vector<std::int64_t>{1, 64, 56, 56}));
  EXPECT_EQ(op.inputs[0].str(), "I[n, c, p + r - 1, q + s - 1]");
}

TEST(Templates, GroupedConv) {
  // clang-format off
  Op op = instantiate_template("conv2d", {{"N", "1"}, {"H", "56"}, {"W", "56"}, {"C", "64"}, {"K", "128"},
                                          {"R", "3"}, {"S", "3"}, {"stride", "2"}, {"pad", "1"}, {"groups", "4"},
                                          {"layout", "NHWC"}});
  // clang-format on
  EXPECT_EQ(op.tensor("W").shape, (std::vector<std::int64_t>{3, 3, 16, 128}));
  EXPECT_EQ(op.tensor("O").shape, (std::vector<std::int64_t>{1, 28, 28, 128}));
  EXPECT_EQ(op.output.str(), "O[n, p, q, g*32 + k]");
  EXPECT_EQ(op.inputs[0].str(), "I[n, p*2 + r - 1, q*2 + s - 1, g*16 + c]");
  EXPECT_EQ(op.var("g").extent, 4);
  EXPECT_EQ(op.var("k").extent, 32);
  EXPECT_EQ(op.var("c").extent, 16);
  EXPECT_EQ(op.macs(), 28 * 28 * 128 * 16 * 9);
}

TEST(Templates, TransposedConv) {
  // clang-format off
  Op op = instantiate_template("conv2d_transpose", {{"N", "1"}, {"H", "4"}, {"W", "4"}, {"C", "512"}, {"K", "256"},
                                                    {"R", "4"}, {"S", "4"}, {"stride", "2"}, {"pad", "1"}});
  // clang-format on
  EXPECT_EQ(op.tensor("O").shape, (std::vector<std::int64_t>{1, 8, 8, 256}));
  EXPECT_EQ(op.inputs[0].str(), "I[n, (p - r + 1)/2, (q - s + 1)/2, c]");
  Op s1 = instantiate_template(
      "conv2d_transpose",
      {{"N", "1"}, {"H", "4"}, {"W", "4"}, {"C", "2"}, {"K", "2"}, {"R", "3"}, {"S", "3"}, {"pad", "1"}});
  EXPECT_EQ(s1.inputs[0].str(), "I[n, p - r + 1, q - s + 1, c]");
}

TEST(Templates, DtypesAndDefaults) {
  Op op = instantiate_template(
      "conv2d",
      {{"N", "1"}, {"H", "8"}, {"W", "8"}, {"C", "4"}, {"K", "4"}, {"R", "3"}, {"S", "3"}, {"dtype", "int8"}});
  EXPECT_EQ(op.tensor("I").dtype, DType::i8);
  EXPECT_EQ(op.tensor("W").dtype, DType::i8);
  EXPECT_EQ(op.tensor("O").dtype, DType::i32);
  EXPECT_EQ(op.tensor("O").shape, (std::vector<std::int64_t>{1, 4, 6, 6}));  // NCHW by default
  Op h = instantiate_template("gemm", {{"M", "2"}, {"N", "2"}, {"K", "2"}, {"dtype", "f16"}});
  EXPECT_EQ(h.tensor("A").dtype, DType::f16);
  EXPECT_EQ(h.tensor("C").dtype, DType::f32);
}

TEST(Templates, CapsuleShapes) {
  // clang-format off
  Op op = instantiate_template("conv2d_capsule", {{"N", "1"}, {"H", "16"}, {"W", "16"}, {"C", "32"}, {"K", "32"},
                                                  {"R", "3"}, {"S", "3"}, {"stride", "2"}, {"pad", "1"},
                                                  {"capsule", "4"}});
  // clang-format on
  EXPECT_EQ(op.tensor("I").shape, (std::vector<std::int64_t>{1, 16, 16, 4, 4, 32}));
  EXPECT_EQ(op.tensor("W").shape, (std::vector<std::int64_t>{3, 3, 4, 4, 32, 32}));
  EXPECT_EQ(op.tensor("O").shape, (std::vector<std::int64_t>{1, 8, 8, 4, 4, 32}));
  EXPECT_EQ(names(op.vars, true), (std::vector<std::string>{"r", "s", "ck", "c"}));
}

void expect_error(const std::string& tmpl, const Params& p, const std::string& msg) {
  try {
    instantiate_template(tmpl, p);
    ADD_FAILURE() << "no error for " << tmpl;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), msg);
  }
}

TEST(Templates, Errors) {
  expect_error("gemmm", {},
               "unknown template 'gemmm' (templates: gemm, batch_matmul, gemv, conv1d, conv2d, "
               "depthwise_conv2d, conv3d, conv2d_transpose, conv2d_capsule, softmax, log_softmax, layernorm, rmsnorm, "
               "batchnorm, gelu, clip, residual_add, maxpool2d, avgpool2d, global_avgpool, conv2d_bias_add_relu, "
               "gemm_bias_gelu, attention)");
  expect_error("gemm", {{"M", "4"}, {"N", "4"}}, "gemm: parameter 'K' is required");
  expect_error("gemm", {{"M", "4"}, {"N", "4"}, {"K", "4"}, {"Q", "1"}},
               "gemm: parameter 'Q' is unknown (parameters: M, N, K, dtype, epilogue)");
  expect_error("gemm", {{"M", "4"}, {"N", "x4"}, {"K", "4"}}, "gemm: parameter 'N' must be an integer, got 'x4'");
  expect_error("gemm", {{"M", "0"}, {"N", "4"}, {"K", "4"}}, "gemm: parameter 'M' must be >= 1, got 0");
  expect_error("gemm", {{"M", "4"}, {"N", "4"}, {"K", "4"}, {"dtype", "f64"}},
               "gemm: parameter 'dtype' must be one of f32|int8|f16, got 'f64'");
  expect_error("gemm", {{"M", "4"}, {"N", "4"}, {"K", "4"}, {"epilogue", "gelu"}},
               "gemm: parameter 'epilogue' must be one of none|bias|relu|bias_relu, got 'gelu'");
  Params conv = {{"N", "1"}, {"H", "8"}, {"W", "8"}, {"C", "6"}, {"K", "8"}, {"R", "3"}, {"S", "3"}};
  Params bad = conv;
  bad["layout"] = "HWCN";
  expect_error("conv2d", bad, "conv2d: parameter 'layout' must be one of NCHW|NHWC, got 'HWCN'");
  bad = conv;
  bad["groups"] = "4";
  expect_error("conv2d", bad, "conv2d: parameter 'groups' = 4 must divide C = 6 and K = 8");
  bad = conv;
  bad["R"] = "9";
  expect_error("conv2d", bad,
               "conv2d: parameter 'R' = 9 does not fit H = 8 with pad 0 and dilation 1 (output size < 1)");
  bad = conv;
  bad["pad"] = "-1";
  expect_error("conv2d", bad, "conv2d: parameter 'pad' must be >= 0, got -1");
}

}  // namespace
}  // namespace attune
