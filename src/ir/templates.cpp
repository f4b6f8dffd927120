// templates.cpp — list_templates() / instantiate_template(): named operator families (gemm,
// conv2d, ...) expanded from integer parameters into spec text, which is then parsed. Going
// through parse_spec keeps a template's Op identical to what its printed text re-parses to.
#include <charconv>
#include <functional>
#include <map>
#include <string>

#include "ir/error.hpp"
#include "ir/op.hpp"
#include "template_params.hpp"

namespace attune {

namespace {

using ir::lst;
using ir::Params;

// The parameters every template accepts besides its own.
const std::vector<TemplateParam> kCommon = {
    {"dtype", "f32", "f32 | int8 (i8 inputs, i32 output) | f16 (f16 inputs, f32 output)"},
    {"epilogue", "none", "none | bias | relu | bias_relu (bias indexed by the output channel/column)"},
};

std::vector<TemplateParam> with_common(std::vector<TemplateParam> ps) { return ir::plus(std::move(ps), kCommon); }

const std::vector<TemplateInfo> kTemplates = {
    {"gemm", "C[m, n] += A[m, k] * B[k, n]",
     with_common({{"M", "", "rows"}, {"N", "", "columns"}, {"K", "", "reduction"}})},
    {"batch_matmul", "C[b, m, n] += A[b, m, k] * B[b, k, n]",
     with_common({{"B", "", "batch"}, {"M", "", "rows"}, {"N", "", "columns"}, {"K", "", "reduction"}})},
    {"gemv", "y[m] += A[m, k] * x[k]", with_common({{"M", "", "rows"}, {"K", "", "reduction"}})},
    {"conv1d", "1-D convolution, O[n, l, k] += I[n, l*stride + r*dilation - pad, c] * W[r, c, k]",
     with_common({{"N", "", "batch"},
                  {"L", "", "input length"},
                  {"C", "", "input channels"},
                  {"K", "", "output channels"},
                  {"R", "", "kernel size"},
                  {"stride", "1", ""},
                  {"pad", "0", ""},
                  {"dilation", "1", ""},
                  {"layout", "NLC", "NLC | NCL"}})},
    {"conv2d", "2-D convolution (grouped with groups > 1)",
     with_common(ir::plus(
         ir::conv2d_shape_params(),
         {{"dilation", "1", ""}, {"groups", "1", "C and K must be multiples"}, {"layout", "NCHW", "NCHW | NHWC"}}))},
    {"depthwise_conv2d", "depthwise 2-D convolution (one filter per channel)",
     with_common({{"N", "", "batch"},
                  {"H", "", "input height"},
                  {"W", "", "input width"},
                  {"C", "", "channels"},
                  {"R", "", "kernel height"},
                  {"S", "", "kernel width"},
                  {"stride", "1", ""},
                  {"pad", "0", ""},
                  {"dilation", "1", ""},
                  {"layout", "NHWC", "NHWC | NCHW"}})},
    {"conv3d", "3-D convolution",
     with_common({{"N", "", "batch"},
                  {"D", "", "input depth"},
                  {"H", "", "input height"},
                  {"W", "", "input width"},
                  {"C", "", "input channels"},
                  {"K", "", "output channels"},
                  {"T", "", "kernel depth"},
                  {"R", "", "kernel height"},
                  {"S", "", "kernel width"},
                  {"stride", "1", ""},
                  {"pad", "0", ""},
                  {"dilation", "1", ""},
                  {"layout", "NDHWC", "NDHWC | NCDHW"}})},
    {"conv2d_transpose", "transposed 2-D convolution, output (H-1)*stride - 2*pad + R",
     with_common({{"N", "", "batch"},
                  {"H", "", "input height"},
                  {"W", "", "input width"},
                  {"C", "", "input channels"},
                  {"K", "", "output channels"},
                  {"R", "", "kernel height"},
                  {"S", "", "kernel width"},
                  {"stride", "1", ""},
                  {"pad", "0", ""},
                  {"layout", "NHWC", "NHWC | NCHW"}})},
    {"conv2d_capsule", "capsule 2-D convolution (capsule x capsule pose matrices)",
     with_common({{"N", "", "batch"},
                  {"H", "", "input height"},
                  {"W", "", "input width"},
                  {"C", "", "input channels"},
                  {"K", "", "output channels"},
                  {"R", "", "kernel height"},
                  {"S", "", "kernel width"},
                  {"stride", "1", ""},
                  {"pad", "0", ""},
                  {"capsule", "", "pose matrix size"},
                  {"layout", "NHWIJC", "NHWIJC"}})},
};

using Dims = std::vector<std::int64_t>;

// Accumulates the spec text: tensors, optional var lines, the compute statement and epilogue.
class SpecText {
 public:
  explicit SpecText(const Params& p) {
    std::string dt = p.str("dtype");
    if (dt == "f32" || dt == "float32") {
      in_ = out_ = "f32";
    } else if (dt == "int8" || dt == "i8") {
      in_ = "i8";
      out_ = "i32";
    } else if (dt == "f16" || dt == "float16") {
      in_ = "f16";
      out_ = "f32";
    } else {
      p.fail("dtype", "must be one of f32|int8|f16, got '" + dt + "'");
    }
    std::string ep = p.choice("epilogue", {"none", "bias", "relu", "bias_relu"});
    bias_ = ep == "bias" || ep == "bias_relu";
    relu_ = ep == "relu" || ep == "bias_relu";
  }

  void input(const std::string& name, const Dims& d) { tensor(name, d, in_); }
  void output(const std::string& name, const Dims& d) { tensor(name, d, out_); }
  void var(const std::string& name, std::int64_t extent) {
    vars_ += "var " + name + " < " + std::to_string(extent) + "\n";
  }
  // `bias_size` elements indexed by `bias_index` (the output channel or column).
  std::string finish(const std::string& compute, std::int64_t bias_size, const std::string& bias_index) {
    std::string s = tensors_;
    if (bias_) s += "tensor Bias[" + std::to_string(bias_size) + "] " + out_ + "\n";
    s += vars_ + compute + "\n";
    if (bias_) s += "epilogue bias Bias[" + bias_index + "]\n";
    if (relu_) s += "epilogue relu\n";
    return s;
  }

 private:
  void tensor(const std::string& name, const Dims& d, const std::string& dt) {
    tensors_ += "tensor " + name + "[";
    for (std::size_t i = 0; i < d.size(); ++i) tensors_ += (i ? ", " : "") + std::to_string(d[i]);
    tensors_ += "] " + dt + "\n";
  }
  std::string in_, out_, tensors_, vars_;
  bool bias_ = false, relu_ = false;
};

// out*stride + tap*dilation - pad
std::string window(const std::string& out, std::int64_t stride, const std::string& tap, std::int64_t dil,
                   std::int64_t pad) {
  return (AffineExpr::var(out, stride) + AffineExpr::var(tap, dil) + AffineExpr::constant_of(-pad)).str();
}

// (out + pad - tap)/stride: the input pixel that reaches output `out` through tap `tap`.
std::string transposed_window(const std::string& out, std::int64_t stride, const std::string& tap, std::int64_t pad) {
  AffineExpr e = AffineExpr::var(out) + AffineExpr::var(tap, -1) + AffineExpr::constant_of(pad);
  e.divisor = stride;
  return e.str();
}

// Output size of a convolution along one axis; an error when the kernel does not fit.
std::int64_t conv_out(const Params& p, const std::string& in, const std::string& k, std::int64_t stride,
                      std::int64_t pad, std::int64_t dil) {
  std::int64_t num = p.num(in) + 2 * pad - dil * (p.num(k) - 1) - 1;
  if (num < 0)
    p.fail(k, "= " + p.str(k) + " does not fit " + in + " = " + p.str(in) + " with pad " + std::to_string(pad) +
                  " and dilation " + std::to_string(dil) + " (output size < 1)");
  return num / stride + 1;
}

std::string gemm(const Params& p) {
  auto M = p.num("M"), N = p.num("N"), K = p.num("K");
  SpecText t(p);
  t.input("A", {M, K});
  t.input("B", {K, N});
  t.output("C", {M, N});
  return t.finish("C[m, n] += A[m, k] * B[k, n]", N, "n");
}

std::string batch_matmul(const Params& p) {
  auto B = p.num("B"), M = p.num("M"), N = p.num("N"), K = p.num("K");
  SpecText t(p);
  t.input("A", {B, M, K});
  t.input("B", {B, K, N});
  t.output("C", {B, M, N});
  return t.finish("C[b, m, n] += A[b, m, k] * B[b, k, n]", N, "n");
}

std::string gemv(const Params& p) {
  auto M = p.num("M"), K = p.num("K");
  SpecText t(p);
  t.input("A", {M, K});
  t.input("x", {K});
  t.output("y", {M});
  return t.finish("y[m] += A[m, k] * x[k]", M, "m");
}

std::string conv1d(const Params& p) {
  auto N = p.num("N"), L = p.num("L"), C = p.num("C"), K = p.num("K"), R = p.num("R");
  auto st = p.num("stride"), pad = p.num("pad", 0), dil = p.num("dilation");
  auto layout = p.choice("layout", {"NLC", "NCL"});
  auto Lo = conv_out(p, "L", "R", st, pad, dil);
  std::string l = window("l", st, "r", dil, pad);
  SpecText t(p);
  if (layout == "NLC") {
    t.input("I", {N, L, C});
    t.input("W", {R, C, K});
    t.output("O", {N, Lo, K});
    return t.finish("O[n, l, k] += I[" + lst({"n", l, "c"}) + "] * W[r, c, k]", K, "k");
  }
  t.input("I", {N, C, L});
  t.input("W", {K, C, R});
  t.output("O", {N, K, Lo});
  return t.finish("O[n, k, l] += I[" + lst({"n", "c", l}) + "] * W[k, c, r]", K, "k");
}

std::string conv2d(const Params& p) {
  auto N = p.num("N"), H = p.num("H"), W = p.num("W"), C = p.num("C"), K = p.num("K");
  auto R = p.num("R"), S = p.num("S");
  auto st = p.num("stride"), pad = p.num("pad", 0), dil = p.num("dilation"), G = p.num("groups");
  auto layout = p.choice("layout", {"NCHW", "NHWC"});
  if (C % G != 0 || K % G != 0)
    p.fail("groups",
           "= " + std::to_string(G) + " must divide C = " + std::to_string(C) + " and K = " + std::to_string(K));
  auto Ho = conv_out(p, "H", "R", st, pad, dil), Wo = conv_out(p, "W", "S", st, pad, dil);
  std::string h = window("p", st, "r", dil, pad), w = window("q", st, "s", dil, pad);
  std::string kk = "k", cc = "c";
  SpecText t(p);
  if (G > 1) {
    kk = (AffineExpr::var("g", K / G) + AffineExpr::var("k")).str();
    cc = (AffineExpr::var("g", C / G) + AffineExpr::var("c")).str();
    t.var("g", G);
    t.var("k", K / G);
  }
  if (layout == "NCHW") {
    t.input("I", {N, C, H, W});
    t.input("W", {K, C / G, R, S});
    t.output("O", {N, K, Ho, Wo});
    return t.finish(
        "O[" + lst({"n", kk, "p", "q"}) + "] += I[" + lst({"n", cc, h, w}) + "] * W[" + lst({kk, "c", "r", "s"}) + "]",
        K, kk);
  }
  t.input("I", {N, H, W, C});
  t.input("W", {R, S, C / G, K});
  t.output("O", {N, Ho, Wo, K});
  return t.finish(
      "O[" + lst({"n", "p", "q", kk}) + "] += I[" + lst({"n", h, w, cc}) + "] * W[" + lst({"r", "s", "c", kk}) + "]", K,
      kk);
}

std::string depthwise_conv2d(const Params& p) {
  auto N = p.num("N"), H = p.num("H"), W = p.num("W"), C = p.num("C"), R = p.num("R"), S = p.num("S");
  auto st = p.num("stride"), pad = p.num("pad", 0), dil = p.num("dilation");
  auto layout = p.choice("layout", {"NHWC", "NCHW"});
  auto Ho = conv_out(p, "H", "R", st, pad, dil), Wo = conv_out(p, "W", "S", st, pad, dil);
  std::string h = window("p", st, "r", dil, pad), w = window("q", st, "s", dil, pad);
  SpecText t(p);
  if (layout == "NHWC") {
    t.input("I", {N, H, W, C});
    t.input("W", {R, S, C});
    t.output("O", {N, Ho, Wo, C});
    return t.finish("O[n, p, q, c] += I[" + lst({"n", h, w, "c"}) + "] * W[r, s, c]", C, "c");
  }
  t.input("I", {N, C, H, W});
  t.input("W", {C, R, S});
  t.output("O", {N, C, Ho, Wo});
  return t.finish("O[n, c, p, q] += I[" + lst({"n", "c", h, w}) + "] * W[c, r, s]", C, "c");
}

std::string conv3d(const Params& p) {
  auto N = p.num("N"), D = p.num("D"), H = p.num("H"), W = p.num("W"), C = p.num("C"), K = p.num("K");
  auto T = p.num("T"), R = p.num("R"), S = p.num("S");
  auto st = p.num("stride"), pad = p.num("pad", 0), dil = p.num("dilation");
  auto layout = p.choice("layout", {"NDHWC", "NCDHW"});
  auto Do = conv_out(p, "D", "T", st, pad, dil), Ho = conv_out(p, "H", "R", st, pad, dil),
       Wo = conv_out(p, "W", "S", st, pad, dil);
  std::string d = window("d", st, "t", dil, pad), h = window("p", st, "r", dil, pad),
              w = window("q", st, "s", dil, pad);
  SpecText t(p);
  if (layout == "NDHWC") {
    t.input("I", {N, D, H, W, C});
    t.input("W", {T, R, S, C, K});
    t.output("O", {N, Do, Ho, Wo, K});
    return t.finish("O[n, d, p, q, k] += I[" + lst({"n", d, h, w, "c"}) + "] * W[t, r, s, c, k]", K, "k");
  }
  t.input("I", {N, C, D, H, W});
  t.input("W", {K, C, T, R, S});
  t.output("O", {N, K, Do, Ho, Wo});
  return t.finish("O[n, k, d, p, q] += I[" + lst({"n", "c", d, h, w}) + "] * W[k, c, t, r, s]", K, "k");
}

std::string conv2d_transpose(const Params& p) {
  auto N = p.num("N"), H = p.num("H"), W = p.num("W"), C = p.num("C"), K = p.num("K");
  auto R = p.num("R"), S = p.num("S"), st = p.num("stride"), pad = p.num("pad", 0);
  auto layout = p.choice("layout", {"NHWC", "NCHW"});
  auto Ho = (H - 1) * st - 2 * pad + R, Wo = (W - 1) * st - 2 * pad + S;
  if (Ho < 1 || Wo < 1) p.fail("pad", "= " + std::to_string(pad) + " leaves no output ((H-1)*stride - 2*pad + R < 1)");
  std::string h = transposed_window("p", st, "r", pad), w = transposed_window("q", st, "s", pad);
  SpecText t(p);
  if (layout == "NHWC") {
    t.input("I", {N, H, W, C});
    t.input("W", {R, S, C, K});
    t.output("O", {N, Ho, Wo, K});
    return t.finish("O[n, p, q, k] += I[" + lst({"n", h, w, "c"}) + "] * W[r, s, c, k]", K, "k");
  }
  t.input("I", {N, C, H, W});
  t.input("W", {C, K, R, S});
  t.output("O", {N, K, Ho, Wo});
  return t.finish("O[n, k, p, q] += I[" + lst({"n", "c", h, w}) + "] * W[c, k, r, s]", K, "k");
}

std::string conv2d_capsule(const Params& p) {
  auto N = p.num("N"), H = p.num("H"), W = p.num("W"), C = p.num("C"), K = p.num("K");
  auto R = p.num("R"), S = p.num("S"), st = p.num("stride"), pad = p.num("pad", 0), cap = p.num("capsule");
  p.choice("layout", {"NHWIJC"});
  auto Ho = conv_out(p, "H", "R", st, pad, 1), Wo = conv_out(p, "W", "S", st, pad, 1);
  std::string h = window("p", st, "r", 1, pad), w = window("q", st, "s", 1, pad);
  SpecText t(p);
  t.input("I", {N, H, W, cap, cap, C});
  t.input("W", {R, S, cap, cap, C, K});
  t.output("O", {N, Ho, Wo, cap, cap, K});
  return t.finish("O[n, p, q, ci, cj, k] += I[" + lst({"n", h, w, "ci", "ck", "c"}) + "] * W[r, s, ck, cj, c, k]", K,
                  "k");
}

const std::map<std::string, std::function<std::string(const Params&)>, std::less<>> kBuilders = {
    {"gemm", gemm},
    {"batch_matmul", batch_matmul},
    {"gemv", gemv},
    {"conv1d", conv1d},
    {"conv2d", conv2d},
    {"depthwise_conv2d", depthwise_conv2d},
    {"conv3d", conv3d},
    {"conv2d_transpose", conv2d_transpose},
    {"conv2d_capsule", conv2d_capsule},
};

// The contraction templates, then the multi-stage ones.
const std::vector<ir::TemplateDef>& all_templates() {
  static const std::vector<ir::TemplateDef> all = [] {
    std::vector<ir::TemplateDef> r;
    for (const auto& info : kTemplates) r.push_back({info, kBuilders.find(info.name)->second});
    const auto& stages = ir::stage_templates();
    r.insert(r.end(), stages.begin(), stages.end());
    return r;
  }();
  return all;
}

}  // namespace

const std::vector<TemplateInfo>& list_templates() {
  static const std::vector<TemplateInfo> infos = [] {
    std::vector<TemplateInfo> r;
    for (const auto& d : all_templates()) r.push_back(d.info);
    return r;
  }();
  return infos;
}

Op instantiate_template(std::string_view name, const std::map<std::string, std::string>& params) {
  const ir::TemplateDef* def = nullptr;
  for (const auto& d : all_templates())
    if (d.info.name == name) def = &d;
  if (!def) {
    std::string known;
    for (const auto& d : all_templates()) known += (known.empty() ? "" : ", ") + d.info.name;
    throw Error("unknown template '" + std::string(name) + "' (templates: " + known + ")");
  }
  Params p(def->info, params);
  std::string text = def->build(p);
  Op op;
  try {
    op = parse_spec(text);
  } catch (const Error& e) {
    throw Error(def->info.name + ": " + e.what());
  }
  op.name = def->info.name;
  return op;
}

}  // namespace attune
