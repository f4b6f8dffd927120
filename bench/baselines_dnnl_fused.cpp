// baselines_dnnl_fused.cpp — oneDNN baselines for the multi-stage ops (see
// baselines_dnnl_fused.hpp). Each problem builds a Chain: the primitives of one timed call, each
// with its arguments bound to attune's buffers (or to the chain's own intermediates).
#include "baselines_dnnl_fused.hpp"

#include <dnnl.hpp>

#include <cmath>
#include <string>
#include <unordered_map>
#include <utility>

#include "dnnl_engine.hpp"
#include "ir/error.hpp"

namespace bench {

namespace {

using dnnl::memory;
using dims = memory::dims;
using tag = memory::format_tag;
using Args = std::unordered_map<int, memory>;
constexpr auto kInference = dnnl::prop_kind::forward_inference;

// The primitives of one call, run in order on one stream.
struct Chain {
  dnnl::stream s{dnnl_engine()};
  std::vector<std::pair<dnnl::primitive, Args>> steps;
  std::string detail;  // "softmax jit:avx512_core + ..."

  void add(const std::string& what, const dnnl::primitive_desc_base& pd, dnnl::primitive p, Args args) {
    detail += (detail.empty() ? "" : " + ") + what + " " + pd.impl_info_str();
    steps.emplace_back(std::move(p), std::move(args));
  }
  void run() {
    for (auto& [p, args] : steps) p.execute(s, args);
    s.wait();
  }
};

// The problem's buffers: attune's inputs by tensor name, and the baseline's own output.
struct Io {
  const Workload& w;
  const std::vector<attune::Buffer>& bufs;
  std::shared_ptr<attune::Buffer> out;

  const attune::Buffer& in(const std::string& name) const {
    const int i = w.op.tensor_index(name);
    if (i < 0) throw attune::Error(w.name + ": template " + w.family + " has no tensor '" + name + "'");
    return bufs.at(std::size_t(i));
  }
  // A oneDNN memory over attune's input `name` (read only: oneDNN never writes a source).
  memory user(const std::string& name, const memory::desc& d) const {
    return memory(d, dnnl_engine(), const_cast<void*>(in(name).data()));
  }
  memory dst(const memory::desc& d) const { return memory(d, dnnl_engine(), out->data()); }
};

memory::desc f32(const dims& d, tag t) { return memory::desc(d, memory::data_type::f32, t); }
memory::desc f32_any(const dims& d) { return f32(d, tag::any); }
// Row-major over the buffer's own shape: ab, abc, abcd.
memory::desc plain(const attune::Buffer& b) {
  static const tag tags[] = {tag::undef, tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde};
  const auto& s = b.shape();
  if (s.empty() || s.size() > 5) throw attune::Error("plain(): rank " + std::to_string(s.size()) + " unsupported");
  return f32(dims(s.begin(), s.end()), tags[s.size()]);
}

dnnl::algorithm gelu_algorithm(const Workload& w) {
  return w.param("form") == "tanh" ? dnnl::algorithm::eltwise_gelu_tanh : dnnl::algorithm::eltwise_gelu_erf;
}

// Right padding that makes oneDNN's output extent `out` (attune's floor formula).
std::int64_t right_pad(std::int64_t in, std::int64_t out, std::int64_t k, std::int64_t stride, std::int64_t pad) {
  return (out - 1) * stride + k - in - pad;
}

// ---- one primitive per op ----------------------------------------------------------------------

void softmax(const Io& io, Chain& c) {
  const auto md = plain(io.in("X"));
  const int axis = int(md.dims().size()) - 1;
  dnnl::softmax_forward::primitive_desc pd({kInference, md, axis}, dnnl_engine());
  c.add("softmax", pd, dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, io.user("X", md)}, {DNNL_ARG_DST, io.dst(md)}});
}

void layernorm(const Io& io, Chain& c) {
  const auto md = plain(io.in("X")), sc = plain(io.in("Gamma"));
  const float eps = std::stof(io.w.param("eps"));
  const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::primitive_desc pd({kInference, md, eps, flags}, dnnl_engine());
  c.add("layer_normalization", pd, dnnl::layer_normalization_forward(pd),
        {{DNNL_ARG_SRC, io.user("X", md)},
         {DNNL_ARG_SCALE, io.user("Gamma", sc)},
         {DNNL_ARG_SHIFT, io.user("Beta", sc)},
         {DNNL_ARG_DST, io.dst(md)}});
}

void gelu(const Io& io, Chain& c) {
  const auto md = plain(io.in("X"));
  dnnl::eltwise_forward::primitive_desc pd({kInference, gelu_algorithm(io.w), md}, dnnl_engine());
  c.add("eltwise_gelu", pd, dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, io.user("X", md)}, {DNNL_ARG_DST, io.dst(md)}});
}

// X and Y as oneDNN's {N, C, H, W} in the op's layout.
void pool(const Io& io, Chain& c, dnnl::algorithm alg) {
  const bool nchw = io.w.param("layout") == "NCHW";
  const auto& x = io.in("X").shape();
  const auto& y = io.out->shape();
  const dims src = nchw ? dims{x[0], x[1], x[2], x[3]} : dims{x[0], x[3], x[1], x[2]};
  const dims dst = nchw ? dims{y[0], y[1], y[2], y[3]} : dims{y[0], y[3], y[1], y[2]};
  const tag t = nchw ? tag::nchw : tag::nhwc;
  const std::int64_t R = std::stoll(io.w.param("R")), S = std::stoll(io.w.param("S"));
  const std::int64_t st = std::stoll(io.w.param("stride")), pad = std::stoll(io.w.param("pad"));
  const dims pr = {right_pad(src[2], dst[2], R, st, pad), right_pad(src[3], dst[3], S, st, pad)};
  dnnl::pooling_forward::primitive_desc pd(
      {kInference, alg, f32(src, t), f32(dst, t), {st, st}, {R, S}, {pad, pad}, pr}, dnnl_engine());
  c.add("pooling", pd, dnnl::pooling_forward(pd),
        {{DNNL_ARG_SRC, io.user("X", f32(src, t))}, {DNNL_ARG_DST, io.dst(f32(dst, t))}});
}

// Y[N, C] is oneDNN's {N, C, 1, 1} in nchw (the same bytes).
void global_avgpool(const Io& io, Chain& c) {
  const bool nchw = io.w.param("layout") == "NCHW";
  const auto& x = io.in("X").shape();
  const dims src = nchw ? dims{x[0], x[1], x[2], x[3]} : dims{x[0], x[3], x[1], x[2]};
  const auto src_md = f32(src, nchw ? tag::nchw : tag::nhwc), dst_md = f32({src[0], src[1], 1, 1}, tag::nchw);
  dnnl::pooling_forward::primitive_desc pd({kInference,
                                            dnnl::algorithm::pooling_avg_include_padding,
                                            src_md,
                                            dst_md,
                                            {1, 1},
                                            {src[2], src[3]},
                                            {0, 0},
                                            {0, 0}},
                                           dnnl_engine());
  c.add("pooling_avg", pd, dnnl::pooling_forward(pd),
        {{DNNL_ARG_SRC, io.user("X", src_md)}, {DNNL_ARG_DST, io.dst(dst_md)}});
}

// ---- primitives with post-ops ------------------------------------------------------------------

// NHWC activations as given (no reorders of I, Res or Y); the weights W[R, S, C, K] (oneDNN's
// hwio) reordered inside the call into the layout the convolution picks, like baselines_dnnl's
// convolutions. Y = relu(conv + Bias + Res): bias, then post-ops binary_add(Res) and relu.
void conv2d_bias_add_relu(const Io& io, Chain& c) {
  const auto& i = io.in("I").shape();
  const auto& wt = io.in("W").shape();
  const auto& y = io.out->shape();
  const std::int64_t st = std::stoll(io.w.param("stride")), pad = std::stoll(io.w.param("pad"));
  const dims src = {i[0], i[3], i[1], i[2]}, wei = {wt[3], wt[2], wt[0], wt[1]}, dst = {y[0], y[3], y[1], y[2]};
  const auto src_md = f32(src, tag::nhwc), dst_md = f32(dst, tag::nhwc), wei_user = f32(wei, tag::hwio);
  const auto bias_md = plain(io.in("Bias"));
  dnnl::post_ops po;
  po.append_binary(dnnl::algorithm::binary_add, dst_md);
  po.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  const dims pr = {right_pad(src[2], dst[2], wei[2], st, pad), right_pad(src[3], dst[3], wei[3], st, pad)};
  dnnl::convolution_forward::desc d(kInference, dnnl::algorithm::convolution_direct, src_md, f32_any(wei), bias_md,
                                    dst_md, {st, st}, {0, 0}, {pad, pad}, pr);
  dnnl::convolution_forward::primitive_desc pd(d, attr, dnnl_engine());
  memory w_user = io.user("W", wei_user), w = w_user;
  if (pd.weights_desc() != wei_user) {
    w = memory(pd.weights_desc(), dnnl_engine());
    dnnl::reorder::primitive_desc rpd(w_user, w);
    c.add("reorder", rpd, dnnl::reorder(rpd), {{DNNL_ARG_FROM, w_user}, {DNNL_ARG_TO, w}});
  }
  c.add("convolution", pd, dnnl::convolution_forward(pd),
        {{DNNL_ARG_SRC, io.user("I", src_md)},
         {DNNL_ARG_WEIGHTS, w},
         {DNNL_ARG_BIAS, io.user("Bias", bias_md)},
         {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, io.user("Res", dst_md)},
         {DNNL_ARG_DST, io.dst(dst_md)}});
}

// Y = gelu(A B + Bias): matmul with a {1, N} bias and an eltwise post-op, plain matrices.
void gemm_bias_gelu(const Io& io, Chain& c) {
  const auto a = plain(io.in("A")), b = plain(io.in("B")), y = plain(*io.out);
  const auto bias = f32({1, io.in("Bias").shape().at(0)}, tag::ab);
  dnnl::post_ops po;
  po.append_eltwise(1.f, gelu_algorithm(io.w), 0.f, 0.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  dnnl::matmul::primitive_desc pd({a, b, bias, y}, attr, dnnl_engine());
  c.add("matmul", pd, dnnl::matmul(pd),
        {{DNNL_ARG_SRC, io.user("A", a)},
         {DNNL_ARG_WEIGHTS, io.user("B", b)},
         {DNNL_ARG_BIAS, io.user("Bias", bias)},
         {DNNL_ARG_DST, io.dst(y)}});
}

// ---- unfused -------------------------------------------------------------------------------

// O = softmax(Q K^T / sqrt(D)) V per head, as a user of oneDNN 2.6 writes it: three primitives
// and an intermediate [H, T, T] of scores. K is read transposed in place (K[h, j, d] as the
// weights {H, D, T} with strides {T D, 1, D}); the scale is the first matmul's output scale.
void attention(const Io& io, Chain& c) {
  const auto& q = io.in("Q").shape();
  const std::int64_t H = q[0], T = q[1], D = q[2];
  const auto qd = plain(io.in("Q")), vd = plain(io.in("V")), od = plain(*io.out);
  const auto kt = memory::desc({H, D, T}, memory::data_type::f32, dims{T * D, 1, D});
  const auto sd = f32({H, T, T}, tag::abc);
  memory scores(sd, dnnl_engine());
  dnnl::primitive_attr scaled;
  scaled.set_output_scales(0, {float(1.0 / std::sqrt(double(D)))});
  dnnl::matmul::primitive_desc qk({qd, kt, sd}, scaled, dnnl_engine());
  c.add("matmul", qk, dnnl::matmul(qk),
        {{DNNL_ARG_SRC, io.user("Q", qd)}, {DNNL_ARG_WEIGHTS, io.user("K", kt)}, {DNNL_ARG_DST, scores}});
  dnnl::softmax_forward::primitive_desc sm({kInference, sd, 2}, dnnl_engine());
  c.add("softmax", sm, dnnl::softmax_forward(sm), {{DNNL_ARG_SRC, scores}, {DNNL_ARG_DST, scores}});
  dnnl::matmul::primitive_desc pv({sd, vd, od}, dnnl_engine());
  c.add("matmul", pv, dnnl::matmul(pv),
        {{DNNL_ARG_SRC, scores}, {DNNL_ARG_WEIGHTS, io.user("V", vd)}, {DNNL_ARG_DST, io.dst(od)}});
  c.detail = "unfused, 3 primitives: " + c.detail;
}

}  // namespace

std::vector<Baseline> dnnl_fused_baselines(const Workload& w, const std::vector<attune::Buffer>& bufs) {
  using Build = void (*)(const Io&, Chain&);
  static const std::unordered_map<std::string, Build> builders = {
      {"softmax", softmax},
      {"layernorm", layernorm},
      {"gelu", gelu},
      {"maxpool2d", [](const Io& io, Chain& c) { pool(io, c, dnnl::algorithm::pooling_max); }},
      {"avgpool2d", [](const Io& io, Chain& c) { pool(io, c, dnnl::algorithm::pooling_avg_include_padding); }},
      {"global_avgpool", global_avgpool},
      {"conv2d_bias_add_relu", conv2d_bias_add_relu},
      {"gemm_bias_gelu", gemm_bias_gelu},
      {"attention", attention},
  };
  const auto it = builders.find(w.family);
  if (it == builders.end()) return {};
  auto chain = std::make_shared<Chain>();
  const Io io{w, bufs, output_like(w.op, bufs)};
  it->second(io, *chain);
  Chain* p = chain.get();
  Baseline b{"oneDNN", io.out, [p] { p->run(); }, chain};
  b.detail = chain->detail;
  return {std::move(b)};
}

}  // namespace bench
