// stage_spec_test.cpp — multi-stage ops (ir/expr.hpp): every multi-stage template computes what
// hand-written loops compute on random inputs, and numbers and expressions print and parse back
// unchanged. (Their malformed statements are in spec_error_test.cpp with the others.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "ir/buffer.hpp"
#include "ir/error.hpp"
#include "ir/evaluator.hpp"
#include "ir/op.hpp"

namespace attune {
namespace {

const std::string kRows = "tensor X[4, 8] f32\ntensor Y[4, 8] f32\n";

TEST(StageSpec, ExpressionsAndNumbersRoundTrip) {
  const std::string text = kRows +
                           "Y[i, j] = X[i, j] * -1.5e-3 + select(X[i, j] >= 0.25, 1, -2) + clip(X[i, j], -1, 1) + "
                           "f32(i32(X[i, j] * 4)) - -X[i, j] - (1 - X[i, j]) / (2 - sigmoid(X[i, j])) + inf * 0\n";
  Op op = parse_spec(text);
  ASSERT_TRUE(op.multi_stage());
  EXPECT_EQ(parse_spec(print_spec(op)), op) << print_spec(op);
  EXPECT_NE(print_spec(op).find("X[i, j] * -0.0015"), std::string::npos) << print_spec(op);
}

TEST(StageSpec, IntermediatesAreNotArguments) {
  Op op = instantiate_template("softmax", {{"M", "3"}, {"N", "5"}});
  ASSERT_EQ(op.tensors.size(), 2u);
  EXPECT_EQ(op.tensors[0].name, "X");
  EXPECT_EQ(op.tensors[1].name, "Y");
  ASSERT_EQ(op.locals.size(), 2u);
  EXPECT_EQ(op.output.tensor, "Y");
  EXPECT_EQ(op.input_tensors(), (std::vector<std::string>{"X"}));
  EXPECT_EQ(op.stages[0].reduce, Reduce::max);
  EXPECT_EQ(op.stages[0].vars.back().name, "n");
  EXPECT_TRUE(op.stages[0].vars.back().reduction);
}

// ---- the templates against hand-written loops ----------------------------------------------

std::vector<Buffer> evaluated(const Op& op, std::uint64_t seed) {
  auto bufs = make_buffers(op, seed);
  evaluate(op, bufs);
  return bufs;
}

const Buffer& buf(const Op& op, std::vector<Buffer>& bufs, const std::string& name) {
  return bufs[op.tensor_index(name)];
}

void expect_near_rel(double got, double want, const std::string& where) {
  EXPECT_NEAR(got, want, 1e-5 * std::max(1.0, std::fabs(want))) << where;
}

TEST(StageTemplates, SoftmaxAndLogSoftmax) {
  for (bool log : {false, true}) {
    Op op = instantiate_template(log ? "log_softmax" : "softmax", {{"B", "2"}, {"M", "3"}, {"N", "7"}});
    auto b = evaluated(op, 11);
    const Buffer &x = buf(op, b, "X"), &y = buf(op, b, "Y");
    for (int r = 0; r < 6; ++r) {
      double mx = -1e300, sum = 0;
      for (int n = 0; n < 7; ++n) mx = std::max(mx, x.get(r * 7 + n));
      for (int n = 0; n < 7; ++n) sum += std::exp(x.get(r * 7 + n) - mx);
      for (int n = 0; n < 7; ++n) {
        const double p = std::exp(x.get(r * 7 + n) - mx) / sum;
        expect_near_rel(y.get(r * 7 + n), log ? std::log(p) : p, "row " + std::to_string(r));
      }
    }
  }
}

TEST(StageTemplates, LayernormAndRmsnorm) {
  Op ln = instantiate_template("layernorm", {{"M", "3"}, {"N", "16"}});
  auto b = evaluated(ln, 3);
  const Buffer &x = buf(ln, b, "X"), &g = buf(ln, b, "Gamma"), &be = buf(ln, b, "Beta"), &y = buf(ln, b, "Y");
  for (int m = 0; m < 3; ++m) {
    double mu = 0, var = 0;
    for (int n = 0; n < 16; ++n) mu += x.get(m * 16 + n) / 16;
    for (int n = 0; n < 16; ++n) var += (x.get(m * 16 + n) - mu) * (x.get(m * 16 + n) - mu) / 16;
    for (int n = 0; n < 16; ++n)
      expect_near_rel(y.get(m * 16 + n), (x.get(m * 16 + n) - mu) / std::sqrt(var + 1e-5) * g.get(n) + be.get(n), "ln");
  }
  Op rms = instantiate_template("rmsnorm", {{"M", "2"}, {"N", "5"}});
  auto r = evaluated(rms, 4);
  const Buffer &rx = buf(rms, r, "X"), &rg = buf(rms, r, "Gamma"), &ry = buf(rms, r, "Y");
  for (int m = 0; m < 2; ++m) {
    double ms = 0;
    for (int n = 0; n < 5; ++n) ms += rx.get(m * 5 + n) * rx.get(m * 5 + n) / 5;
    for (int n = 0; n < 5; ++n)
      expect_near_rel(ry.get(m * 5 + n), rx.get(m * 5 + n) / std::sqrt(ms + 1e-6) * rg.get(n), "rms");
  }
}

TEST(StageTemplates, GeluFormsMatchTheirClosedForms) {
  for (std::string form : {"erf", "tanh"}) {
    Op op = instantiate_template("gelu", {{"M", "4"}, {"N", "9"}, {"form", form}});
    auto b = evaluated(op, 5);
    const Buffer &x = buf(op, b, "X"), &y = buf(op, b, "Y");
    for (int i = 0; i < 36; ++i) {
      const double t = x.get(i);
      const double want = form == "erf" ? 0.5 * t * (1 + std::erf(t / std::sqrt(2.0)))
                                        : 0.5 * t * (1 + std::tanh(std::sqrt(2 / M_PI) * (t + 0.044715 * t * t * t)));
      expect_near_rel(y.get(i), want, form);
    }
  }
}

TEST(StageTemplates, MaxPoolIgnoresPaddingAvgPoolCountsIt) {
  const std::map<std::string, std::string> p = {{"N", "1"}, {"C", "2"}, {"H", "5"},      {"W", "6"},
                                                {"R", "3"}, {"S", "3"}, {"stride", "2"}, {"pad", "1"}};
  Op mx = instantiate_template("maxpool2d", p), av = instantiate_template("avgpool2d", p);
  auto bm = evaluated(mx, 7), ba = evaluated(av, 7);
  const Buffer &x = buf(mx, bm, "X"), &ym = buf(mx, bm, "Y"), &ya = buf(av, ba, "Y");
  ASSERT_EQ(ym.shape(), (std::vector<std::int64_t>{1, 2, 3, 3}));
  for (int c = 0; c < 2; ++c)
    for (int p0 = 0; p0 < 3; ++p0)
      for (int q = 0; q < 3; ++q) {
        double best = -std::numeric_limits<double>::infinity(), sum = 0;
        for (int r = 0; r < 3; ++r)
          for (int s = 0; s < 3; ++s) {
            const int h = p0 * 2 + r - 1, w = q * 2 + s - 1;
            if (h < 0 || h >= 5 || w < 0 || w >= 6) continue;
            best = std::max(best, x.get((c * 5 + h) * 6 + w));
            sum += x.get((c * 5 + h) * 6 + w);
          }
        const int o = (c * 3 + p0) * 3 + q;
        expect_near_rel(ym.get(o), best, "max");
        expect_near_rel(ya.get(o), sum / 9, "avg");
      }
}

TEST(StageTemplates, GlobalAvgPoolResidualClip) {
  Op gap = instantiate_template("global_avgpool", {{"N", "2"}, {"C", "3"}, {"H", "4"}, {"W", "5"}});
  auto g = evaluated(gap, 8);
  for (int nc = 0; nc < 6; ++nc) {
    double s = 0;
    for (int i = 0; i < 20; ++i) s += buf(gap, g, "X").get(nc * 20 + i);
    expect_near_rel(buf(gap, g, "Y").get(nc), s / 20, "gap");
  }
  Op res = instantiate_template("residual_add", {{"M", "3"}, {"N", "4"}, {"relu", "1"}});
  auto rb = evaluated(res, 10);
  for (int i = 0; i < 12; ++i)
    expect_near_rel(buf(res, rb, "Y").get(i), std::max(0.0, buf(res, rb, "A").get(i) + buf(res, rb, "R").get(i)),
                    "res");
  Op cl = instantiate_template("clip", {{"M", "3"}, {"N", "4"}, {"lo", "-0.25"}, {"hi", "0.5"}});
  auto cb = evaluated(cl, 12);
  for (int i = 0; i < 12; ++i)
    expect_near_rel(buf(cl, cb, "Y").get(i), std::clamp(buf(cl, cb, "X").get(i), -0.25, 0.5), "clip");
}

TEST(StageTemplates, BatchnormPerChannel) {
  Op bn = instantiate_template("batchnorm", {{"N", "1"}, {"C", "3"}, {"H", "2"}, {"W", "2"}, {"layout", "NHWC"}});
  auto b = make_buffers(bn, 9);
  Buffer& var = b[bn.tensor_index("Var")];
  for (int c = 0; c < 3; ++c) var.set(c, std::fabs(var.get(c)) + 0.5);
  evaluate(bn, b);
  for (int i = 0; i < 12; ++i) {
    const int c = i % 3;
    const double want = (buf(bn, b, "X").get(i) - buf(bn, b, "Mean").get(c)) / std::sqrt(std::fabs(var.get(c)) + 1e-5) *
                            buf(bn, b, "Gamma").get(c) +
                        buf(bn, b, "Beta").get(c);
    expect_near_rel(buf(bn, b, "Y").get(i), want, "bn");
  }
}

TEST(StageTemplates, FusedContractions) {
  Op op = instantiate_template(
      "conv2d_bias_add_relu",
      {{"N", "1"}, {"H", "5"}, {"W", "4"}, {"C", "3"}, {"K", "2"}, {"R", "3"}, {"S", "3"}, {"pad", "1"}});
  auto b = evaluated(op, 13);
  const Buffer &in = buf(op, b, "I"), &w = buf(op, b, "W"), &bias = buf(op, b, "Bias"), &res = buf(op, b, "Res");
  for (int p = 0; p < 5; ++p)
    for (int q = 0; q < 4; ++q)
      for (int k = 0; k < 2; ++k) {
        double acc = 0;
        for (int r = 0; r < 3; ++r)
          for (int s = 0; s < 3; ++s)
            for (int c = 0; c < 3; ++c) {
              const int h = p + r - 1, x = q + s - 1;
              if (h < 0 || h >= 5 || x < 0 || x >= 4) continue;
              acc += in.get((h * 4 + x) * 3 + c) * w.get(((r * 3 + s) * 3 + c) * 2 + k);
            }
        const int o = (p * 4 + q) * 2 + k;
        expect_near_rel(buf(op, b, "Y").get(o), std::max(0.0, acc + bias.get(k) + res.get(o)), "conv");
      }
  Op gg = instantiate_template("gemm_bias_gelu", {{"M", "3"}, {"N", "4"}, {"K", "5"}});
  auto g = evaluated(gg, 14);
  for (int m = 0; m < 3; ++m)
    for (int n = 0; n < 4; ++n) {
      double acc = buf(gg, g, "Bias").get(n);
      for (int k = 0; k < 5; ++k) acc += buf(gg, g, "A").get(m * 5 + k) * buf(gg, g, "B").get(k * 4 + n);
      expect_near_rel(buf(gg, g, "Y").get(m * 4 + n), 0.5 * acc * (1 + std::erf(acc / std::sqrt(2.0))), "gemm");
    }
}

TEST(StageTemplates, AttentionIsSoftmaxOfScaledScoresTimesV) {
  const int H = 2, T = 5, D = 3;
  Op op = instantiate_template("attention", {{"H", "2"}, {"T", "5"}, {"D", "3"}});
  auto b = evaluated(op, 15);
  const Buffer &q = buf(op, b, "Q"), &k = buf(op, b, "K"), &v = buf(op, b, "V"), &o = buf(op, b, "O");
  auto at = [&](const Buffer& t, int h, int i, int d) { return t.get((h * T + i) * D + d); };
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < T; ++i) {
      std::vector<double> s(T);
      for (int j = 0; j < T; ++j) {
        for (int d = 0; d < D; ++d) s[j] += at(q, h, i, d) * at(k, h, j, d);
        s[j] /= std::sqrt(static_cast<double>(D));
      }
      double mx = *std::max_element(s.begin(), s.end()), sum = 0;
      for (double& x : s) sum += (x = std::exp(x - mx));
      for (int d = 0; d < D; ++d) {
        double want = 0;
        for (int j = 0; j < T; ++j) want += s[j] / sum * at(v, h, j, d);
        expect_near_rel(at(o, h, i, d), want, "attention");
      }
    }
}

}  // namespace
}  // namespace attune
