// templates_stages.cpp — the multi-stage templates: normalisations, activations, pooling,
// residual adds, fused contractions and attention, each expanded into spec text (expr.hpp's
// statements) that parse_spec then checks like any user's spec. All are f32.
#include <cmath>
#include <cstdio>
#include <string>

#include "template_params.hpp"

namespace attune::ir {

namespace {

using Dims = std::vector<std::int64_t>;

std::string tensor(const std::string& name, const Dims& d) {
  std::string s = "tensor " + name + "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "] f32\n";
}

// 0.5 x (1 + erf(x / sqrt 2)), or the tanh approximation of it.
std::string gelu_of(const std::string& x, const std::string& form) {
  if (form == "erf") return "0.5 * " + x + " * (1 + erf(" + x + " * 0.70710678118654752))";
  return "0.5 * " + x + " * (1 + tanh(0.79788456080286536 * (" + x + " + 0.044715 * " + x + " * " + x + " * " + x +
         ")))";
}

std::string softmax_like(const Params& p, bool log) {
  auto B = p.num("B"), M = p.num("M"), N = p.num("N");
  std::string s = tensor("X", {B, M, N}) + tensor("Y", {B, M, N}) + tensor("Mx", {B, M}) + tensor("S", {B, M});
  s += "Mx[b, m] max= X[b, m, n]\n";
  s += "S[b, m] += exp(X[b, m, n] - Mx[b, m])\n";
  if (log) return s + "Y[b, m, n] = X[b, m, n] - Mx[b, m] - log(S[b, m])\n";
  return s + "Y[b, m, n] = exp(X[b, m, n] - Mx[b, m]) / S[b, m]\n";
}

std::string softmax(const Params& p) { return softmax_like(p, false); }
std::string log_softmax(const Params& p) { return softmax_like(p, true); }

std::string layernorm(const Params& p) {
  auto M = p.num("M"), N = p.num("N");
  const std::string eps = spec_number(p.real("eps"));
  std::string s = tensor("X", {M, N}) + tensor("Gamma", {N}) + tensor("Beta", {N}) + tensor("Y", {M, N}) +
                  tensor("Mu", {M}) + tensor("Var", {M});
  s += "Mu[m] mean= X[m, n]\n";
  s += "Var[m] mean= (X[m, n] - Mu[m]) * (X[m, n] - Mu[m])\n";
  return s + "Y[m, n] = (X[m, n] - Mu[m]) * rsqrt(Var[m] + " + eps + ") * Gamma[n] + Beta[n]\n";
}

std::string rmsnorm(const Params& p) {
  auto M = p.num("M"), N = p.num("N");
  std::string s = tensor("X", {M, N}) + tensor("Gamma", {N}) + tensor("Y", {M, N}) + tensor("Ms", {M});
  s += "Ms[m] mean= X[m, n] * X[m, n]\n";
  return s + "Y[m, n] = X[m, n] * rsqrt(Ms[m] + " + spec_number(p.real("eps")) + ") * Gamma[n]\n";
}

std::string batchnorm(const Params& p) {
  auto N = p.num("N"), C = p.num("C"), H = p.num("H"), W = p.num("W");
  const bool nchw = p.choice("layout", {"NCHW", "NHWC"}) == "NCHW";
  const Dims shape = nchw ? Dims{N, C, H, W} : Dims{N, H, W, C};
  const std::string x = nchw ? "[n, c, h, w]" : "[n, h, w, c]";
  std::string s = tensor("X", shape) + tensor("Mean", {C}) + tensor("Var", {C}) + tensor("Gamma", {C}) +
                  tensor("Beta", {C}) + tensor("Y", shape);
  // abs(): a variance is never negative, and the random inputs of verification are.
  return s + "Y" + x + " = (X" + x + " - Mean[c]) * rsqrt(abs(Var[c]) + " + spec_number(p.real("eps")) +
         ") * Gamma[c] + Beta[c]\n";
}

std::string gelu(const Params& p) {
  auto M = p.num("M"), N = p.num("N");
  const std::string form = p.choice("form", {"erf", "tanh"});
  return tensor("X", {M, N}) + tensor("Y", {M, N}) + "Y[m, n] = " + gelu_of("X[m, n]", form) + "\n";
}

std::string clip(const Params& p) {
  auto M = p.num("M"), N = p.num("N");
  const double lo = p.real("lo"), hi = p.real("hi");
  if (lo > hi) p.fail("lo", "must not exceed hi");
  return tensor("X", {M, N}) + tensor("Y", {M, N}) + "Y[m, n] = clip(X[m, n], " + spec_number(lo) + ", " + spec_number(hi) +
         ")\n";
}

std::string residual_add(const Params& p) {
  auto M = p.num("M"), N = p.num("N");
  const bool relu = p.choice("relu", {"0", "1"}) == "1";
  std::string s = tensor("A", {M, N}) + tensor("R", {M, N}) + tensor("Y", {M, N});
  return s + (relu ? "Y[m, n] = relu(A[m, n] + R[m, n])\n" : "Y[m, n] = A[m, n] + R[m, n]\n");
}

// Pooling over R x S windows in NCHW or NHWC; `how` is max= or mean=.
std::string pool(const Params& p, const std::string& how) {
  auto N = p.num("N"), C = p.num("C"), H = p.num("H"), W = p.num("W"), R = p.num("R"), S = p.num("S");
  auto st = p.num("stride"), pad = p.num("pad", 0);
  if (pad >= R || pad >= S) p.fail("pad", "must be smaller than the window (R, S)");
  const std::int64_t Ho = (H + 2 * pad - R) / st + 1, Wo = (W + 2 * pad - S) / st + 1;
  if (H + 2 * pad < R || W + 2 * pad < S) p.fail("R", "window larger than the padded input");
  const bool nchw = p.choice("layout", {"NCHW", "NHWC"}) == "NCHW";
  auto win = [&](const std::string& o, const std::string& t) {
    return (AffineExpr::var(o, st) + AffineExpr::var(t) + AffineExpr::constant_of(-pad)).str();
  };
  std::string s = tensor("X", nchw ? Dims{N, C, H, W} : Dims{N, H, W, C}) +
                  tensor("Y", nchw ? Dims{N, C, Ho, Wo} : Dims{N, Ho, Wo, C});
  s += "var r < " + std::to_string(R) + "\nvar s < " + std::to_string(S) + "\n";
  if (nchw) return s + "Y[n, c, p, q] " + how + " X[" + lst({"n", "c", win("p", "r"), win("q", "s")}) + "]\n";
  return s + "Y[n, p, q, c] " + how + " X[" + lst({"n", win("p", "r"), win("q", "s"), "c"}) + "]\n";
}

std::string maxpool2d(const Params& p) { return pool(p, "max="); }
std::string avgpool2d(const Params& p) { return pool(p, "mean="); }

std::string global_avgpool(const Params& p) {
  auto N = p.num("N"), C = p.num("C"), H = p.num("H"), W = p.num("W");
  const bool nchw = p.choice("layout", {"NCHW", "NHWC"}) == "NCHW";
  std::string s = tensor("X", nchw ? Dims{N, C, H, W} : Dims{N, H, W, C}) + tensor("Y", {N, C});
  return s + (nchw ? "Y[n, c] mean= X[n, c, h, w]\n" : "Y[n, c] mean= X[n, h, w, c]\n");
}

// NHWC convolution, then bias, the residual and relu in one op.
std::string conv2d_bias_add_relu(const Params& p) {
  auto N = p.num("N"), H = p.num("H"), W = p.num("W"), C = p.num("C"), K = p.num("K"), R = p.num("R"), S = p.num("S"),
       st = p.num("stride"), pad = p.num("pad", 0);
  if (H + 2 * pad < R || W + 2 * pad < S) p.fail("R", "kernel larger than the padded input");
  const std::int64_t Ho = (H + 2 * pad - R) / st + 1, Wo = (W + 2 * pad - S) / st + 1;
  auto win = [&](const std::string& o, const std::string& t) {
    return (AffineExpr::var(o, st) + AffineExpr::var(t) + AffineExpr::constant_of(-pad)).str();
  };
  std::string s = tensor("I", {N, H, W, C}) + tensor("W", {R, S, C, K}) + tensor("Bias", {K}) +
                  tensor("Res", {N, Ho, Wo, K}) + tensor("Y", {N, Ho, Wo, K}) + tensor("Acc", {N, Ho, Wo, K});
  s += "Acc[n, p, q, k] += I[" + lst({"n", win("p", "r"), win("q", "s"), "c"}) + "] * W[r, s, c, k]\n";
  return s + "Y[n, p, q, k] = relu(Acc[n, p, q, k] + Bias[k] + Res[n, p, q, k])\n";
}

std::string gemm_bias_gelu(const Params& p) {
  auto M = p.num("M"), N = p.num("N"), K = p.num("K");
  const std::string form = p.choice("form", {"erf", "tanh"});
  std::string s =
      tensor("A", {M, K}) + tensor("B", {K, N}) + tensor("Bias", {N}) + tensor("Y", {M, N}) + tensor("Acc", {M, N});
  s += "Acc[m, n] += A[m, k] * B[k, n]\n";
  return s + "Y[m, n] = " + gelu_of("(Acc[m, n] + Bias[n])", form) + "\n";
}

// softmax(Q K^T / sqrt(D)) V per head, the row maximum subtracted before exp.
std::string attention(const Params& p) {
  auto H = p.num("H"), T = p.num("T"), D = p.num("D");
  const std::string scale = spec_number(1.0 / std::sqrt(static_cast<double>(D)));
  std::string s = tensor("Q", {H, T, D}) + tensor("K", {H, T, D}) + tensor("V", {H, T, D}) + tensor("O", {H, T, D}) +
                  tensor("Sc", {H, T, T}) + tensor("Mx", {H, T}) + tensor("E", {H, T, T}) + tensor("Sum", {H, T}) +
                  tensor("P", {H, T, T});
  s += "Sc[h, i, j] += Q[h, i, d] * K[h, j, d]\n";
  s += "Mx[h, i] max= Sc[h, i, j]\n";
  s += "E[h, i, j] = exp((Sc[h, i, j] - Mx[h, i]) * " + scale + ")\n";
  s += "Sum[h, i] += E[h, i, j]\n";
  // The probabilities as their own stage: both products are then plain contractions, which run
  // as register-tiled micro-kernels (schedule/loopnest.hpp); P can still be inlined or computed
  // per row.
  s += "P[h, i, j] = E[h, i, j] / Sum[h, i]\n";
  return s + "O[h, i, d] += P[h, i, j] * V[h, j, d]\n";
}

const std::vector<TemplateParam> kRows = {{"M", "", "rows"}, {"N", "", "columns (the normalised axis)"}};
const std::vector<TemplateParam> kImage = {{"N", "", "batch"},
                                           {"C", "", "channels"},
                                           {"H", "", "height"},
                                           {"W", "", "width"},
                                           {"layout", "NCHW", "NCHW | NHWC"}};

}  // namespace

const std::vector<TemplateDef>& stage_templates() {
  static const std::vector<TemplateDef> defs = {
      {{"softmax",
        "Y = softmax(X) over the last axis of X[B, M, N]",
        {{"B", "1", "batch"}, {"M", "", "rows"}, {"N", "", "the softmax axis"}}},
       softmax},
      {{"log_softmax",
        "Y = log(softmax(X)) over the last axis of X[B, M, N]",
        {{"B", "1", "batch"}, {"M", "", "rows"}, {"N", "", "the softmax axis"}}},
       log_softmax},
      {{"layernorm", "Y = (X - mean) / sqrt(var + eps) * Gamma + Beta over the rows of X[M, N]",
        plus(kRows, {{"eps", "1e-5", ""}})},
       layernorm},
      {{"rmsnorm", "Y = X / sqrt(mean(X^2) + eps) * Gamma over the rows of X[M, N]",
        plus(kRows, {{"eps", "1e-6", ""}})},
       rmsnorm},
      {{"batchnorm", "inference batch normalisation with per-channel Mean, Var, Gamma, Beta",
        plus(kImage, {{"eps", "1e-5", ""}})},
       batchnorm},
      {{"gelu", "Y = gelu(X) on X[M, N]", plus(kRows, {{"form", "erf", "erf | tanh"}})}, gelu},
      {{"clip", "Y = min(max(X, lo), hi) on X[M, N] (ReLU6 by default)",
        plus(kRows, {{"lo", "0", ""}, {"hi", "6", ""}})},
       clip},
      {{"residual_add", "Y = A + R (then relu if relu=1) on [M, N]", plus(kRows, {{"relu", "0", "0 | 1"}})},
       residual_add},
      {{"maxpool2d", "max pooling over R x S windows; padding never wins",
        plus(kImage, {{"R", "", "window height"}, {"S", "", "window width"}, {"stride", "1", ""}, {"pad", "0", ""}})},
       maxpool2d},
      {{"avgpool2d", "average pooling over R x S windows; padding counts as zeros (count_include_pad)",
        plus(kImage, {{"R", "", "window height"}, {"S", "", "window width"}, {"stride", "1", ""}, {"pad", "0", ""}})},
       avgpool2d},
      {{"global_avgpool", "Y[n, c] = mean of X over H and W", kImage}, global_avgpool},
      {{"conv2d_bias_add_relu", "Y = relu(conv2d(I, W) + Bias + Res), NHWC", conv2d_shape_params()},
       conv2d_bias_add_relu},
      {{"gemm_bias_gelu",
        "Y = gelu(A B + Bias)",
        {{"M", "", "rows"}, {"N", "", "columns"}, {"K", "", "reduction"}, {"form", "erf", "erf | tanh"}}},
       gemm_bias_gelu},
      {{"attention",
        "O = softmax(Q K^T / sqrt(D)) V per head (one multi-stage op)",
        {{"H", "", "heads"}, {"T", "", "tokens"}, {"D", "", "head dimension"}}},
       attention},
  };
  return defs;
}

}  // namespace attune::ir
