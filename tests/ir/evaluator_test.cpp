// evaluator_test.cpp — the reference evaluator against hand-written loops for each operator
// family (random inputs; floats compared with a tight tolerance, integers exactly).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>

#include "ir/buffer.hpp"
#include "ir/error.hpp"
#include "ir/evaluator.hpp"

namespace attune {
namespace {

using Params = std::map<std::string, std::string>;
using Idx = std::vector<std::int64_t>;

// Row-major element access by multi-index (bounds are the caller's business).
struct View {
  Buffer& b;
  std::int64_t flat(const Idx& i) const {
    std::int64_t f = 0;
    for (std::size_t d = 0; d < i.size(); ++d) f = f * b.shape()[d] + i[d];
    return f;
  }
  bool in(const Idx& i) const {
    for (std::size_t d = 0; d < i.size(); ++d)
      if (i[d] < 0 || i[d] >= b.shape()[d]) return false;
    return true;
  }
  double at(const Idx& i) const { return in(i) ? b.get(flat(i)) : 0.0; }
};

// Evaluates `op` on random inputs and returns the buffers; `want` gets a zeroed output to fill.
struct Evaluated {
  Op op;
  std::vector<Buffer> bufs;
  Buffer want;
  explicit Evaluated(Op o, std::uint64_t seed = 42) : op(std::move(o)), bufs(make_buffers(op, seed)) {
    want = bufs[op.tensor_index(op.output.tensor)];
    evaluate(op, bufs);
  }
  View in(const std::string& t) { return View{bufs[op.tensor_index(t)]}; }
  const Buffer& got() { return bufs[op.tensor_index(op.output.tensor)]; }
  void check(double rtol = 1e-6) {
    Comparison c = compare(got(), want, rtol);
    EXPECT_TRUE(c.ok) << c.str();
  }
};

// Accumulates in double, then rounds via Buffer::set (what the evaluator promises).
void fill(Buffer& out, const std::vector<double>& acc) {
  for (std::int64_t i = 0; i < out.numel(); ++i) out.set(i, acc[i]);
}

TEST(Evaluator, Gemm) {
  Evaluated r(instantiate_template("gemm", {{"M", "7"}, {"N", "9"}, {"K", "13"}}));
  auto A = r.in("A"), B = r.in("B");
  View C{r.want};
  std::vector<double> acc(r.want.numel());
  for (int m = 0; m < 7; ++m)
    for (int n = 0; n < 9; ++n)
      for (int k = 0; k < 13; ++k) acc[C.flat({m, n})] += A.at({m, k}) * B.at({k, n});
  fill(r.want, acc);
  r.check();
  EXPECT_NE(r.got().get(0), 0.0);
}

TEST(Evaluator, GemmInt8IsExactWithBiasRelu) {
  Evaluated r(instantiate_template(
      "gemm", {{"M", "5"}, {"N", "6"}, {"K", "300"}, {"dtype", "int8"}, {"epilogue", "bias_relu"}}));
  auto A = r.in("A"), B = r.in("B"), Bias = r.in("Bias");
  View C{r.want};
  int negatives = 0;
  for (int m = 0; m < 5; ++m)
    for (int n = 0; n < 6; ++n) {
      std::int64_t s = 0;
      for (int k = 0; k < 300; ++k)
        s += static_cast<std::int64_t>(A.at({m, k})) * static_cast<std::int64_t>(B.at({k, n}));
      s += static_cast<std::int64_t>(Bias.at({n}));
      negatives += s < 0;
      r.want.set(C.flat({m, n}), s < 0 ? 0 : s);
    }
  EXPECT_GT(negatives, 0);
  r.check(0);
}

TEST(Evaluator, Conv2dNchwStridePadDilation) {
  const int N = 2, H = 9, W = 8, C = 3, K = 4, R = 3, S = 2, st = 2, pad = 2, dil = 2;
  // clang-format off
  Evaluated r(instantiate_template("conv2d", {{"N", "2"}, {"H", "9"}, {"W", "8"}, {"C", "3"}, {"K", "4"}, {"R", "3"},
                                        {"S", "2"}, {"stride", "2"}, {"pad", "2"}, {"dilation", "2"}}));
  // clang-format on
  const int Ho = (H + 2 * pad - dil * (R - 1) - 1) / st + 1, Wo = (W + 2 * pad - dil * (S - 1) - 1) / st + 1;
  ASSERT_EQ(r.want.shape(), (Idx{N, K, Ho, Wo}));
  auto I = r.in("I"), Wt = r.in("W");
  View O{r.want};
  std::vector<double> acc(r.want.numel());
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      for (int p = 0; p < Ho; ++p)
        for (int q = 0; q < Wo; ++q)
          for (int c = 0; c < C; ++c)
            for (int rr = 0; rr < R; ++rr)
              for (int s = 0; s < S; ++s)
                acc[O.flat({n, k, p, q})] +=
                    I.at({n, c, p * st + rr * dil - pad, q * st + s * dil - pad}) * Wt.at({k, c, rr, s});
  fill(r.want, acc);
  r.check();
}

TEST(Evaluator, GroupedConvNhwc) {
  const int H = 7, W = 6, C = 8, K = 12, G = 4, R = 3, S = 3, pad = 1;
  // clang-format off
  Evaluated r(instantiate_template("conv2d", {{"N", "1"}, {"H", "7"}, {"W", "6"}, {"C", "8"}, {"K", "12"}, {"R", "3"},
                                        {"S", "3"}, {"pad", "1"}, {"groups", "4"}, {"layout", "NHWC"}}));
  // clang-format on
  auto I = r.in("I"), Wt = r.in("W");
  View O{r.want};
  std::vector<double> acc(r.want.numel());
  const int Cg = C / G, Kg = K / G;
  for (int p = 0; p < H; ++p)
    for (int q = 0; q < W; ++q)
      for (int oc = 0; oc < K; ++oc) {
        int g = oc / Kg;
        for (int c = 0; c < Cg; ++c)
          for (int rr = 0; rr < R; ++rr)
            for (int s = 0; s < S; ++s)
              acc[O.flat({0, p, q, oc})] += I.at({0, p + rr - pad, q + s - pad, g * Cg + c}) * Wt.at({rr, s, c, oc});
      }
  fill(r.want, acc);
  r.check();
}

TEST(Evaluator, DepthwiseNhwcWithBias) {
  const int H = 8, W = 8, C = 5, R = 3, S = 3, st = 2, pad = 1;
  // clang-format off
  Evaluated r(instantiate_template("depthwise_conv2d", {{"N", "1"}, {"H", "8"}, {"W", "8"}, {"C", "5"}, {"R", "3"},
                                                  {"S", "3"}, {"stride", "2"}, {"pad", "1"}, {"epilogue", "bias"}}));
  // clang-format on
  const int Ho = (H + 2 * pad - R) / st + 1, Wo = (W + 2 * pad - S) / st + 1;
  auto I = r.in("I"), Wt = r.in("W"), Bias = r.in("Bias");
  View O{r.want};
  for (int p = 0; p < Ho; ++p)
    for (int q = 0; q < Wo; ++q)
      for (int c = 0; c < C; ++c) {
        double a = 0;
        for (int rr = 0; rr < R; ++rr)
          for (int s = 0; s < S; ++s) a += I.at({0, p * st + rr - pad, q * st + s - pad, c}) * Wt.at({rr, s, c});
        r.want.set(O.flat({0, p, q, c}), static_cast<float>(a) + static_cast<float>(Bias.at({c})));
      }
  r.check();
}

// Transposed convolution checked in scatter form: every input pixel and kernel tap adds into
// the output pixel it reaches.
void check_transpose(const std::string& layout, int H, int W, int C, int K, int R, int S, int st, int pad) {
  SCOPED_TRACE(layout);
  Evaluated r(instantiate_template("conv2d_transpose", {{"N", "1"},
                                                        {"H", std::to_string(H)},
                                                        {"W", std::to_string(W)},
                                                        {"C", std::to_string(C)},
                                                        {"K", std::to_string(K)},
                                                        {"R", std::to_string(R)},
                                                        {"S", std::to_string(S)},
                                                        {"stride", std::to_string(st)},
                                                        {"pad", std::to_string(pad)},
                                                        {"layout", layout}}));
  const bool nhwc = layout == "NHWC";
  const int Ho = (H - 1) * st - 2 * pad + R, Wo = (W - 1) * st - 2 * pad + S;
  auto I = r.in("I"), Wt = r.in("W");
  View O{r.want};
  std::vector<double> acc(r.want.numel());
  for (int h = 0; h < H; ++h)
    for (int w = 0; w < W; ++w)
      for (int c = 0; c < C; ++c)
        for (int rr = 0; rr < R; ++rr)
          for (int s = 0; s < S; ++s)
            for (int k = 0; k < K; ++k) {
              int p = h * st - pad + rr, q = w * st - pad + s;
              if (p < 0 || p >= Ho || q < 0 || q >= Wo) continue;
              double x = nhwc ? I.at({0, h, w, c}) : I.at({0, c, h, w});
              double y = nhwc ? Wt.at({rr, s, c, k}) : Wt.at({c, k, rr, s});
              acc[nhwc ? O.flat({0, p, q, k}) : O.flat({0, k, p, q})] += x * y;
            }
  fill(r.want, acc);
  r.check();
}

TEST(Evaluator, Conv2dTransposeScatterForm) {
  check_transpose("NHWC", 4, 5, 3, 2, 4, 4, 2, 1);
  check_transpose("NCHW", 3, 4, 2, 3, 3, 2, 3, 2);
  check_transpose("NHWC", 4, 4, 2, 2, 3, 3, 1, 1);
}

TEST(Evaluator, Capsule) {
  const int H = 6, W = 5, C = 2, K = 3, R = 3, S = 3, st = 2, pad = 1, cap = 2;
  // clang-format off
  Evaluated r(instantiate_template("conv2d_capsule", {{"N", "1"}, {"H", "6"}, {"W", "5"}, {"C", "2"}, {"K", "3"},
                                                {"R", "3"}, {"S", "3"}, {"stride", "2"}, {"pad", "1"},
                                                {"capsule", "2"}}));
  // clang-format on
  const int Ho = (H + 2 * pad - R) / st + 1, Wo = (W + 2 * pad - S) / st + 1;
  auto I = r.in("I"), Wt = r.in("W");
  View O{r.want};
  std::vector<double> acc(r.want.numel());
  for (int p = 0; p < Ho; ++p)
    for (int q = 0; q < Wo; ++q)
      for (int ci = 0; ci < cap; ++ci)
        for (int cj = 0; cj < cap; ++cj)
          for (int k = 0; k < K; ++k)
            for (int rr = 0; rr < R; ++rr)
              for (int s = 0; s < S; ++s)
                for (int ck = 0; ck < cap; ++ck)
                  for (int c = 0; c < C; ++c)
                    acc[O.flat({0, p, q, ci, cj, k})] +=
                        I.at({0, p * st + rr - pad, q * st + s - pad, ci, ck, c}) * Wt.at({rr, s, ck, cj, c, k});
  fill(r.want, acc);
  r.check();
}

TEST(Evaluator, Int8ConvWithBiasRelu) {
  // clang-format off
  Evaluated r(instantiate_template("conv2d", {{"N", "1"}, {"H", "6"}, {"W", "6"}, {"C", "16"}, {"K", "4"}, {"R", "3"},
                                        {"S", "3"}, {"pad", "1"}, {"dtype", "int8"}, {"epilogue", "bias_relu"}}));
  // clang-format on
  auto I = r.in("I"), Wt = r.in("W"), Bias = r.in("Bias");
  View O{r.want};
  for (int k = 0; k < 4; ++k)
    for (int p = 0; p < 6; ++p)
      for (int q = 0; q < 6; ++q) {
        std::int64_t s = static_cast<std::int64_t>(Bias.at({k}));
        for (int c = 0; c < 16; ++c)
          for (int rr = 0; rr < 3; ++rr)
            for (int ss = 0; ss < 3; ++ss)
              s += static_cast<std::int64_t>(I.at({0, c, p + rr - 1, q + ss - 1})) *
                   static_cast<std::int64_t>(Wt.at({k, c, rr, ss}));
        r.want.set(O.flat({0, k, p, q}), s < 0 ? 0 : s);
      }
  r.check(0);
}

TEST(Evaluator, F16GemmAccumulatesInF32Output) {
  Evaluated r(instantiate_template("gemm", {{"M", "4"}, {"N", "3"}, {"K", "50"}, {"dtype", "f16"}}));
  auto A = r.in("A"), B = r.in("B");
  View C{r.want};
  std::vector<double> acc(r.want.numel());
  for (int m = 0; m < 4; ++m)
    for (int n = 0; n < 3; ++n)
      for (int k = 0; k < 50; ++k) acc[C.flat({m, n})] += A.at({m, k}) * B.at({k, n});
  fill(r.want, acc);
  r.check();
}

TEST(Evaluator, ElementwiseAndConstantIndices) {
  // No reduction variables, a reversed index and a constant index.
  Evaluated r(
      parse_spec("tensor A[6] f32\ntensor B[3, 6] f32\ntensor O[6] f32\nO[i] += A[5 - i] * B[2, i]\nepilogue relu"));
  auto A = r.in("A"), B = r.in("B");
  for (int i = 0; i < 6; ++i) {
    double v = static_cast<float>(A.at({5 - i}) * B.at({2, i}));
    r.want.set(i, v < 0 ? 0 : v);
  }
  r.check();
}

TEST(Evaluator, RejectsMismatchedBuffers) {
  Op op = instantiate_template("gemm", {{"M", "2"}, {"N", "2"}, {"K", "2"}});
  auto bufs = make_buffers(op, 1);
  bufs[1] = Buffer(DType::f32, {2, 3});
  try {
    evaluate(op, bufs);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "evaluate: tensor 'B' is f32[2, 2] but its buffer is f32[2, 3]");
  }
  bufs.pop_back();
  EXPECT_THROW(evaluate(op, bufs), Error);
}

}  // namespace
}  // namespace attune
