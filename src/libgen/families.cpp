// families.cpp — the contraction families (see families.hpp). Shapes are written compactly as
// "param=tensor.dim" lists; each entry mirrors the tensor declarations of one template
// layout in src/ir/templates.cpp, and family_match.cpp checks every guess it makes from them
// by instantiating the template, so a wrong entry can only cause a missed match, never a
// wrong one.
#include "libgen/families.hpp"

#include <sstream>

#include "ir/error.hpp"

namespace attune::libgen {

namespace {

std::vector<ShapeSource> shape(const std::string& text) { return shape_sources(text); }

// A contraction's tensors: two inputs, the output, then the epilogue's optional bias.
std::vector<PointerArg> two_inputs(std::string a, std::string b, std::string out) {
  return {{std::move(a)}, {std::move(b)}, {std::move(out), ArgRole::output}, {"bias", ArgRole::bias}};
}

ParamField dim(std::string name, std::string doc) { return {std::move(name), std::move(doc)}; }
const ParamField kStride{"stride", "stride of every spatial axis (0 means 1)", true, false};
const ParamField kPad{"pad", "zero padding on both sides of every spatial axis", false, true};
const ParamField kDilation{"dilation", "dilation of every spatial axis (0 means 1)", true, false};
const ParamField kGroups{"groups", "groups; must divide C and K (0 means 1)", true, false};
ParamField layout(const std::string& choices) { return layout_field(choices); }

// Matrix products: gemm, batch_matmul, gemv.
void add_matrix_families(std::vector<Family>& f) {
  f.push_back({"gemm",
               "C[m, n] = A[m, k] * B[k, n], row-major; bias[n]",
               {dim("M", "rows of A and C"), dim("N", "columns of B and C"), dim("K", "columns of A, rows of B")},
               two_inputs("A", "B", "C"),
               "n",
               {{"", shape("M=0.0 K=0.1 N=1.1")}}});
  f.push_back({"batch_matmul",
               "C[b, m, n] = A[b, m, k] * B[b, k, n], row-major; bias[n]",
               {dim("B", "batch"), dim("M", "rows"), dim("N", "columns"), dim("K", "reduction")},
               two_inputs("A", "B", "C"),
               "n",
               {{"", shape("B=0.0 M=0.1 K=0.2 N=1.2")}}});
  f.push_back({"gemv",
               "y[m] = A[m, k] * x[k], row-major; bias[m]",
               {dim("M", "rows of A, length of y"), dim("K", "columns of A, length of x")},
               two_inputs("A", "x", "y"),
               "m",
               {{"", shape("M=0.0 K=0.1")}}});
}

// Convolutions whose input window is out*stride + tap*dilation - pad, in one to three spatial
// dimensions, depthwise included.
void add_convolution_families(std::vector<Family>& f) {
  f.push_back(
      {"conv1d",
       "O[n, l, k] = I[n, l*stride + r*dilation - pad, c] * W[r, c, k] (NLC; NCL: I[N,C,L], "
       "W[K,C,R], O[N,K,Lo]); Lo = (L + 2*pad - dilation*(R-1) - 1)/stride + 1; bias[k]",
       {dim("N", "batch"), dim("L", "input length"), dim("C", "input channels"), dim("K", "output channels"),
        dim("R", "kernel size"), kStride, kPad, kDilation, layout("NLC | NCL")},
       two_inputs("in", "w", "out"),
       "k",
       {{"NLC", shape("N=0.0 L=0.1 C=0.2 R=1.0 K=1.2"), 1}, {"NCL", shape("N=0.0 C=0.1 L=0.2 K=1.0 R=1.2"), 2}}});
  f.push_back({"conv2d",
               "2-D convolution, grouped when groups > 1. NCHW: I[N,C,H,W], W[K,C/groups,R,S], "
               "O[N,K,Ho,Wo]; NHWC: I[N,H,W,C], W[R,S,C/groups,K], O[N,Ho,Wo,K]; "
               "Ho = (H + 2*pad - dilation*(R-1) - 1)/stride + 1 (Wo likewise); bias[k]",
               {dim("N", "batch"), dim("H", "input height"), dim("W", "input width"), dim("C", "input channels"),
                dim("K", "output channels"), dim("R", "kernel height"), dim("S", "kernel width"), kStride, kPad,
                kDilation, kGroups, layout("NCHW | NHWC")},
               two_inputs("in", "w", "out"),
               "k",
               {{"NCHW", shape("N=0.0 C=0.1 H=0.2 W=0.3 K=1.0 R=1.2 S=1.3"), 2},
                {"NHWC", shape("N=0.0 H=0.1 W=0.2 C=0.3 R=1.0 S=1.1 K=1.3"), 1}}});
  f.push_back({"depthwise_conv2d",
               "depthwise 2-D convolution, one R x S filter per channel. NHWC: I[N,H,W,C], W[R,S,C], "
               "O[N,Ho,Wo,C]; NCHW: I[N,C,H,W], W[C,R,S], O[N,C,Ho,Wo]; sizes as conv2d; bias[c]",
               {dim("N", "batch"), dim("H", "input height"), dim("W", "input width"), dim("C", "channels"),
                dim("R", "kernel height"), dim("S", "kernel width"), kStride, kPad, kDilation, layout("NHWC | NCHW")},
               two_inputs("in", "w", "out"),
               "c",
               {{"NHWC", shape("N=0.0 H=0.1 W=0.2 C=0.3 R=1.0 S=1.1"), 1},
                {"NCHW", shape("N=0.0 C=0.1 H=0.2 W=0.3 R=1.1 S=1.2"), 2}}});
  f.push_back({"conv3d",
               "3-D convolution. NDHWC: I[N,D,H,W,C], W[T,R,S,C,K], O[N,Do,Ho,Wo,K]; NCDHW: "
               "I[N,C,D,H,W], W[K,C,T,R,S], O[N,K,Do,Ho,Wo]; sizes as conv2d per axis; bias[k]",
               {dim("N", "batch"), dim("D", "input depth"), dim("H", "input height"), dim("W", "input width"),
                dim("C", "input channels"), dim("K", "output channels"), dim("T", "kernel depth"),
                dim("R", "kernel height"), dim("S", "kernel width"), kStride, kPad, kDilation, layout("NDHWC | NCDHW")},
               two_inputs("in", "w", "out"),
               "k",
               {{"NDHWC", shape("N=0.0 D=0.1 H=0.2 W=0.3 C=0.4 T=1.0 R=1.1 S=1.2 K=1.4"), 1},
                {"NCDHW", shape("N=0.0 C=0.1 D=0.2 H=0.3 W=0.4 K=1.0 T=1.2 R=1.3 S=1.4"), 2}}});
}

// Convolutions shaped otherwise: transposed (the window divides by the stride) and capsule
// (pose matrices beside the channels).
void add_other_convolution_families(std::vector<Family>& f) {
  f.push_back({"conv2d_transpose",
               "transposed 2-D convolution: O[n, p, q, k] = I[n, (p + pad - r)/stride, (q + pad - s)/stride, c] "
               "* W[r, s, c, k] (a non-integer quotient reads zero). NHWC: I[N,H,W,C], W[R,S,C,K], "
               "O[N,Ho,Wo,K]; NCHW: I[N,C,H,W], W[C,K,R,S], O[N,K,Ho,Wo]; Ho = (H-1)*stride - 2*pad + R; bias[k]",
               {dim("N", "batch"), dim("H", "input height"), dim("W", "input width"), dim("C", "input channels"),
                dim("K", "output channels"), dim("R", "kernel height"), dim("S", "kernel width"), kStride, kPad,
                layout("NHWC | NCHW")},
               two_inputs("in", "w", "out"),
               "k",
               {{"NHWC", shape("N=0.0 H=0.1 W=0.2 C=0.3 R=1.0 S=1.1 K=1.3"), 1},
                {"NCHW", shape("N=0.0 C=0.1 H=0.2 W=0.3 K=1.1 R=1.2 S=1.3"), 2}},
               true});
  f.push_back({"conv2d_capsule",
               "capsule 2-D convolution: O[n, p, q, i, j, k] = I[n, p*stride + r - pad, q*stride + s - pad, i, x, c] "
               "* W[r, s, x, j, c, k]; I[N,H,W,cap,cap,C], W[R,S,cap,cap,C,K], O[N,Ho,Wo,cap,cap,K]; bias[k]",
               {dim("N", "batch"), dim("H", "input height"), dim("W", "input width"), dim("C", "input channels"),
                dim("K", "output channels"), dim("R", "kernel height"), dim("S", "kernel width"), kStride, kPad,
                dim("capsule", "pose matrix size"), layout("NHWIJC")},
               two_inputs("in", "w", "out"),
               "k",
               {{"NHWIJC", shape("N=0.0 H=0.1 W=0.2 capsule=0.3 C=0.5 R=1.0 S=1.1 K=1.5"), 1}}});
}

// The generated header and dispatch list the families in this order.
std::vector<Family> build() {
  std::vector<Family> f;
  add_matrix_families(f);
  add_convolution_families(f);
  add_other_convolution_families(f);
  add_stage_families(f);
  return f;
}

}  // namespace

ParamField layout_field(const std::string& choices) {
  return {"layout", "tensor layout: " + choices + " (DEFAULT picks the first)", false, false, FieldKind::layout};
}

std::vector<ShapeSource> shape_sources(const std::string& text) {
  std::vector<ShapeSource> out;
  std::istringstream is(text);
  std::string tok;
  while (is >> tok) {  // "C=0.1" or "R=r"
    const auto eq = tok.find('='), dot = tok.find('.');
    if (dot == std::string::npos)
      out.push_back({tok.substr(0, eq), 0, 0, tok.substr(eq + 1)});
    else
      out.push_back({tok.substr(0, eq), std::stoi(tok.substr(eq + 1, dot - eq - 1)), std::stoi(tok.substr(dot + 1))});
  }
  return out;
}

bool Family::has_bias() const {
  for (const auto& a : args)
    if (a.role == ArgRole::bias) return true;
  return false;
}

std::vector<PointerArg> Family::c_order() const {
  std::vector<PointerArg> out;
  for (const auto& a : args)
    if (a.role != ArgRole::output) out.push_back(a);
  out.push_back(output());
  return out;
}

const PointerArg& Family::output() const {
  for (const auto& a : args)
    if (a.role == ArgRole::output) return a;
  throw InternalError("libgen: family '" + name + "' declares no output");
}

const std::vector<Family>& families() {
  static const std::vector<Family> kFamilies = build();
  return kFamilies;
}

const Family* find_family(std::string_view name) {
  for (const auto& f : families())
    if (f.name == name) return &f;
  return nullptr;
}

const std::vector<std::string>& all_layouts() {
  static const std::vector<std::string> kLayouts = {"NCHW", "NHWC", "NCL", "NLC", "NCDHW", "NDHWC", "NHWIJC"};
  return kLayouts;
}

}  // namespace attune::libgen
