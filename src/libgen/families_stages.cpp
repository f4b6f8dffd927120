// families_stages.cpp — the families of the multi-stage templates (src/ir/templates_stages.cpp):
// normalisations, activations, pooling, fused contractions and attention. As in families.cpp,
// each entry mirrors the template's tensor declarations (their order is the pointer order);
// family_match.cpp accepts a guess only when the template re-instantiated from it is the task.
// None has a contraction epilogue: the fused templates' Bias is an ordinary input.
#include "libgen/families.hpp"

namespace attune::libgen {

namespace {

ParamField dim(std::string name, std::string doc) { return {std::move(name), std::move(doc)}; }
// B of softmax: the template's default is 1, which a zeroed struct means too.
ParamField batch() { return {"B", "batch (0 means 1)", true}; }
ParamField eps(const std::string& def) {
  return {"eps", "added to the variance before the square root (0 means " + def + "; not negative)", false, false,
          FieldKind::real, {}, def};
}
ParamField form() {
  return {"form", "0: exact gelu, 0.5 x (1 + erf(x / sqrt 2)); 1: its tanh approximation", false, false,
          FieldKind::choice, {"erf", "tanh"}};
}
ParamField window(std::string name, std::string doc) { return dim(std::move(name), std::move(doc)); }
const ParamField kStride{"stride", "window stride on both axes (0 means 1)", true, false};
const ParamField kPad{"pad", "padding on both sides of H and W; smaller than R and S", false, true};

std::vector<PointerArg> inputs_then(std::vector<std::string> ins, std::string out) {
  std::vector<PointerArg> args;
  for (auto& i : ins) args.push_back({std::move(i)});
  args.push_back({std::move(out), ArgRole::output});
  return args;
}

// Softmax, normalisations and elementwise ops over rows.
void add_row_families(std::vector<Family>& f) {
  const std::vector<ParamField> rows = {batch(), dim("M", "rows"), dim("N", "row length (the softmax axis)")};
  f.push_back({"softmax",
               "Y[b, m, n] = exp(X[b, m, n] - max) / sum_n exp(X[b, m, n] - max), max over the row; X, Y [B, M, N]",
               rows, inputs_then({"X"}, "Y"), "", {{"", shape_sources("B=0.0 M=0.1 N=0.2")}}});
  f.push_back({"log_softmax",
               "Y[b, m, n] = X[b, m, n] - max - log(sum_n exp(X[b, m, n] - max)), max over the row; X, Y [B, M, N]",
               rows, inputs_then({"X"}, "Y"), "", {{"", shape_sources("B=0.0 M=0.1 N=0.2")}}});
  f.push_back({"layernorm",
               "Y[m, n] = (X[m, n] - mean) / sqrt(var + eps) * Gamma[n] + Beta[n], mean and (biased) variance "
               "over the row; X, Y [M, N], Gamma, Beta [N]",
               {dim("M", "rows"), dim("N", "row length (the normalised axis)"), eps("1e-5")},
               inputs_then({"X", "Gamma", "Beta"}, "Y"), "", {{"", shape_sources("M=0.0 N=0.1")}}});
  f.push_back({"rmsnorm",
               "Y[m, n] = X[m, n] / sqrt(mean_n X[m, n]^2 + eps) * Gamma[n]; X, Y [M, N], Gamma [N]",
               {dim("M", "rows"), dim("N", "row length (the normalised axis)"), eps("1e-6")},
               inputs_then({"X", "Gamma"}, "Y"), "", {{"", shape_sources("M=0.0 N=0.1")}}});
  f.push_back({"gelu", "Y = gelu(X) elementwise; X, Y [M, N]", {dim("M", "rows"), dim("N", "columns"), form()},
               inputs_then({"X"}, "Y"), "", {{"", shape_sources("M=0.0 N=0.1")}}});
  f.push_back({"clip",
               "Y = min(max(X, lo), hi) elementwise; X, Y [M, N]",
               {dim("M", "rows"), dim("N", "columns"),
                {"lo", "lower bound (ReLU6: 0)", false, false, FieldKind::real},
                {"hi", "upper bound, not below lo (ReLU6: 6; a zeroed struct clips to [0, 0])", false, false,
                 FieldKind::real}},
               inputs_then({"X"}, "Y"), "", {{"", shape_sources("M=0.0 N=0.1")}}});
  f.push_back({"residual_add",
               "Y = A + R elementwise, then max(0, Y) when relu is 1; A, R, Y [M, N]",
               {dim("M", "rows"), dim("N", "columns"),
                {"relu", "0: Y = A + R; 1: Y = max(0, A + R)", false, false, FieldKind::choice, {"0", "1"}}},
               inputs_then({"A", "R"}, "Y"), "", {{"", shape_sources("M=0.0 N=0.1")}}});
}

// Per-channel and pooling families over images in NCHW or NHWC.
void add_image_families(std::vector<Family>& f) {
  const std::vector<ParamField> image = {dim("N", "batch"), dim("C", "channels"), dim("H", "height"),
                                         dim("W", "width")};
  const std::vector<LayoutVariant> plain = {{"NCHW", shape_sources("N=0.0 C=0.1 H=0.2 W=0.3")},
                                            {"NHWC", shape_sources("N=0.0 H=0.1 W=0.2 C=0.3")}};
  std::vector<ParamField> bn = image;
  bn.push_back(eps("1e-5"));
  bn.push_back(layout_field("NCHW | NHWC"));
  f.push_back({"batchnorm",
               "inference batch normalisation: Y = (X - Mean[c]) / sqrt(|Var[c]| + eps) * Gamma[c] + Beta[c]; "
               "X, Y [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC), Mean, Var, Gamma, Beta [C]",
               bn, inputs_then({"X", "Mean", "Var", "Gamma", "Beta"}, "Y"), "", plain});

  std::vector<ParamField> pool = image;
  for (const auto& p : {window("R", "window height"), window("S", "window width"), kStride, kPad,
                        layout_field("NCHW | NHWC")})
    pool.push_back(p);
  // The window's extents are the variables r and s; stride and pad sit in X's H index.
  const std::vector<LayoutVariant> windows = {{"NCHW", shape_sources("N=0.0 C=0.1 H=0.2 W=0.3 R=r S=s"), 2},
                                              {"NHWC", shape_sources("N=0.0 H=0.1 W=0.2 C=0.3 R=r S=s"), 1}};
  const std::string sizes =
      "X [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC), Y likewise with Ho = (H + 2*pad - R)/stride + 1 and Wo";
  f.push_back({"maxpool2d",
               "Y[n, c, p, q] = max over the R x S window at (p*stride - pad, q*stride - pad) of X; padding never "
               "wins; " + sizes,
               pool, inputs_then({"X"}, "Y"), "", windows});
  f.push_back({"avgpool2d",
               "Y[n, c, p, q] = sum over the R x S window at (p*stride - pad, q*stride - pad) of X / (R*S); "
               "padding counts as zeros (count_include_pad); " + sizes,
               pool, inputs_then({"X"}, "Y"), "", windows});
  std::vector<ParamField> global = image;
  global.push_back(layout_field("NCHW | NHWC"));
  f.push_back({"global_avgpool",
               "Y[n, c] = mean of X[n, c, :, :] over H and W; X [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC), Y [N, C]",
               global, inputs_then({"X"}, "Y"), "", plain});
}

// Contractions fused with their consumers, and attention.
void add_fused_families(std::vector<Family>& f) {
  f.push_back({"conv2d_bias_add_relu",
               "Y[n, p, q, k] = max(0, conv2d(I, W)[n, p, q, k] + Bias[k] + Res[n, p, q, k]), NHWC: "
               "I[N,H,W,C], W[R,S,C,K], Bias[K], Res and Y [N,Ho,Wo,K], Ho = (H + 2*pad - R)/stride + 1",
               {dim("N", "batch"), dim("H", "input height"), dim("W", "input width"), dim("C", "input channels"),
                dim("K", "output channels"), dim("R", "kernel height"), dim("S", "kernel width"),
                {"stride", "stride of both spatial axes (0 means 1)", true, false},
                {"pad", "zero padding on both sides of H and W", false, true}},
               inputs_then({"I", "W", "Bias", "Res"}, "Y"), "",
               {{"", shape_sources("N=0.0 H=0.1 W=0.2 C=0.3 R=1.0 S=1.1 K=1.3"), 1}}});
  f.push_back({"gemm_bias_gelu",
               "Y[m, n] = gelu(A[m, k] * B[k, n] + Bias[n]), row-major: A[M,K], B[K,N], Bias[N], Y[M,N]",
               {dim("M", "rows"), dim("N", "columns"), dim("K", "reduction"), form()},
               inputs_then({"A", "B", "Bias"}, "Y"), "", {{"", shape_sources("M=0.0 K=0.1 N=1.1")}}});
  f.push_back({"attention",
               "O[h] = softmax(Q[h] K[h]^T / sqrt(D)) V[h] per head, the row maximum subtracted first; "
               "Q, K, V, O [H, T, D]",
               {dim("H", "heads"), dim("T", "tokens"), dim("D", "head dimension")},
               inputs_then({"Q", "K", "V"}, "O"), "", {{"", shape_sources("H=0.0 T=0.1 D=0.2")}}});
}

}  // namespace

void add_stage_families(std::vector<Family>& f) {
  add_row_families(f);
  add_image_families(f);
  add_fused_families(f);
}

}  // namespace attune::libgen
