// baselines_dnnl.cpp — oneDNN adapters (see baselines_dnnl.hpp).
//
// attune's tensors are plain row-major in the layouts of src/ir/templates.cpp (NCHW or NHWC
// activations, weights [K, C/G, R, S] / [R, S, C/G, K] / ...). oneDNN's memory descriptors take
// explicit strides, so every attune buffer is described as is (a permutation of its row-major
// strides) and no conversion happens outside the timed call: the user memories point straight
// at attune's buffers.
#include "baselines_dnnl.hpp"

#include <dnnl.hpp>

#include <optional>

#include "baselines_dnnl_fused.hpp"
#include "dnnl_engine.hpp"
#include "ir/error.hpp"

namespace bench {

dnnl::engine& dnnl_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

namespace {

using dnnl::memory;
using dims = memory::dims;

// The buffer's row-major dims/strides, reordered so that oneDNN dim i is attune axis perm[i].
struct Plain {
  dims d, s;
};
Plain permuted(const std::vector<std::int64_t>& shape, const std::vector<int>& perm) {
  std::vector<std::int64_t> rm(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i) rm[i] = rm[i + 1] * shape[i + 1];
  Plain p;
  for (int a : perm) {
    p.d.push_back(shape.at(a));
    p.s.push_back(rm.at(a));
  }
  return p;
}
// Grouped weights: oneDNN wants {G, O/G, I/G, spatial...}; attune's O axis holds g*(O/G) + o,
// so it splits into a G axis with stride (O/G)*stride(O) and an O/G axis with stride(O).
Plain grouped(Plain w, std::int64_t G) {
  const auto O = w.d[0], so = w.s[0];
  w.d[0] = O / G;
  w.d.insert(w.d.begin(), G);
  w.s.insert(w.s.begin(), (O / G) * so);
  return w;
}
memory::desc md(const Plain& p) { return memory::desc(p.d, memory::data_type::f32, p.s); }
memory::desc any(const dims& d) { return memory::desc(d, memory::data_type::f32, memory::format_tag::any); }

// ---- matmul ----------------------------------------------------------------------------------

std::vector<Baseline> matmul(const Workload& w, const std::vector<attune::Buffer>& bufs) {
  // A [B?, M, K], B [B?, K, N], C [B?, M, N], plain row-major: oneDNN's matmul reads these
  // directly (no "preferred" layout to reorder into for a user's plain matrices).
  auto plain = [](const attune::Buffer& b) {
    std::vector<int> perm(b.shape().size());
    for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = int(i);
    return md(permuted(b.shape(), perm));
  };
  auto a_md = plain(bufs[0]), b_md = plain(bufs[1]), c_md = plain(bufs[2]);
  auto pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), dnnl_engine());
  struct State {
    dnnl::stream s{dnnl_engine()};
    dnnl::matmul prim;
    memory a, b, c;
  };
  auto st = std::make_shared<State>();
  Baseline out{"oneDNN", output_like(w.op, bufs), {}, st};
  st->prim = dnnl::matmul(pd);
  st->a = memory(a_md, dnnl_engine(), const_cast<void*>(bufs[0].data()));
  st->b = memory(b_md, dnnl_engine(), const_cast<void*>(bufs[1].data()));
  st->c = memory(c_md, dnnl_engine(), out.out->data());
  State* p = st.get();
  out.run = [p] {
    p->prim.execute(p->s, {{DNNL_ARG_SRC, p->a}, {DNNL_ARG_WEIGHTS, p->b}, {DNNL_ARG_DST, p->c}});
    p->s.wait();
  };
  return {std::move(out)};
}

// ---- convolutions ----------------------------------------------------------------------------

struct ConvProblem {
  bool deconv = false;
  Plain src, wei, dst;  // oneDNN order: src/dst {N, C, spatial...}, wei {[G,] O, I, spatial...}
  std::int64_t stride = 1, pad = 0, dilation = 1;
};

// attune's layouts (templates.cpp) as permutations into oneDNN's dim order.
ConvProblem describe(const Workload& w, const std::vector<attune::Buffer>& bufs) {
  const auto& I = bufs[0].shape();
  const auto& W = bufs[1].shape();
  const auto& O = bufs[2].shape();
  ConvProblem c;
  c.stride = w.num("stride", 1);
  c.pad = w.num("pad", 0);
  c.dilation = w.num("dilation", 1);
  const std::string f = w.family;
  if (f == "conv2d") {
    const bool nhwc = w.str("layout", "NCHW") == "NHWC";
    const std::vector<int> act = nhwc ? std::vector<int>{0, 3, 1, 2} : std::vector<int>{0, 1, 2, 3};
    c.src = permuted(I, act);
    c.dst = permuted(O, act);
    // NCHW: W[K, C/G, R, S]; NHWC: W[R, S, C/G, K]
    c.wei = permuted(W, nhwc ? std::vector<int>{3, 2, 0, 1} : std::vector<int>{0, 1, 2, 3});
    if (const auto G = w.num("groups", 1); G > 1) c.wei = grouped(c.wei, G);
  } else if (f == "depthwise_conv2d") {
    const bool nhwc = w.str("layout", "NHWC") == "NHWC";
    const std::vector<int> act = nhwc ? std::vector<int>{0, 3, 1, 2} : std::vector<int>{0, 1, 2, 3};
    c.src = permuted(I, act);
    c.dst = permuted(O, act);
    // NHWC: W[R, S, C]; NCHW: W[C, R, S] -> {G = C, 1, 1, R, S} (size-1 axes: any stride)
    Plain k = permuted(W, nhwc ? std::vector<int>{2, 0, 1} : std::vector<int>{0, 1, 2});
    c.wei.d = {k.d[0], 1, 1, k.d[1], k.d[2]};
    c.wei.s = {k.s[0], 1, 1, k.s[1], k.s[2]};
  } else if (f == "conv1d") {
    const bool nlc = w.str("layout", "NLC") == "NLC";
    const std::vector<int> act = nlc ? std::vector<int>{0, 2, 1} : std::vector<int>{0, 1, 2};
    c.src = permuted(I, act);
    c.dst = permuted(O, act);
    c.wei = permuted(W, nlc ? std::vector<int>{2, 1, 0} : std::vector<int>{0, 1, 2});  // W[R,C,K] / W[K,C,R]
  } else if (f == "conv3d") {
    const bool cl = w.str("layout", "NDHWC") == "NDHWC";
    const std::vector<int> act = cl ? std::vector<int>{0, 4, 1, 2, 3} : std::vector<int>{0, 1, 2, 3, 4};
    c.src = permuted(I, act);
    c.dst = permuted(O, act);
    // W[T, R, S, C, K] / W[K, C, T, R, S]
    c.wei = permuted(W, cl ? std::vector<int>{4, 3, 0, 1, 2} : std::vector<int>{0, 1, 2, 3, 4});
  } else if (f == "conv2d_transpose") {
    c.deconv = true;
    const bool nhwc = w.str("layout", "NHWC") == "NHWC";
    const std::vector<int> act = nhwc ? std::vector<int>{0, 3, 1, 2} : std::vector<int>{0, 1, 2, 3};
    c.src = permuted(I, act);
    c.dst = permuted(O, act);
    // oneDNN deconvolution weights are {O = K, I = C, R, S}; attune: W[R, S, C, K] / W[C, K, R, S]
    c.wei = permuted(W, nhwc ? std::vector<int>{3, 2, 0, 1} : std::vector<int>{1, 0, 2, 3});
  } else {
    throw attune::Error("oneDNN has no primitive for " + f);
  }
  return c;
}

std::vector<Baseline> conv(const Workload& w, const std::vector<attune::Buffer>& bufs) {
  const ConvProblem c = describe(w, bufs);
  const std::size_t nsp = c.src.d.size() - 2;
  dims strides(nsp, c.stride), dil(nsp, c.dilation - 1), pl(nsp, c.pad), pr(nsp, c.pad);
  if (!c.deconv)
    for (std::size_t i = 0; i < nsp; ++i) {  // right padding that yields attune's output size
      const auto in = c.src.d[2 + i], out = c.dst.d[2 + i], k = c.wei.d[c.wei.d.size() - nsp + i];
      pr[i] = (out - 1) * c.stride + (k - 1) * c.dilation + 1 - in - c.pad;
    }
  const auto src_user = md(c.src), wei_user = md(c.wei), dst_user = md(c.dst);
  const auto kind = dnnl::prop_kind::forward_inference;

  struct State {
    dnnl::stream s{dnnl_engine()};
    dnnl::primitive prim;
    memory src_user, wei_user, dst_user, src, wei, dst;
    std::optional<dnnl::reorder> r_src, r_wei, r_dst;
  };
  auto st = std::make_shared<State>();
  Baseline out{"oneDNN", output_like(w.op, bufs), {}, st};

  memory::desc src_md, wei_md, dst_md;
  if (c.deconv) {
    dnnl::deconvolution_forward::desc d(kind, dnnl::algorithm::deconvolution_direct, any(c.src.d), any(c.wei.d),
                                        any(c.dst.d), strides, dil, pl, pr);
    dnnl::deconvolution_forward::primitive_desc pd(d, dnnl_engine());
    src_md = pd.src_desc(), wei_md = pd.weights_desc(), dst_md = pd.dst_desc();
    st->prim = dnnl::deconvolution_forward(pd);
  } else {
    dnnl::convolution_forward::desc d(kind, dnnl::algorithm::convolution_direct, any(c.src.d), any(c.wei.d),
                                      any(c.dst.d), strides, dil, pl, pr);
    dnnl::convolution_forward::primitive_desc pd(d, dnnl_engine());
    src_md = pd.src_desc(), wei_md = pd.weights_desc(), dst_md = pd.dst_desc();
    st->prim = dnnl::convolution_forward(pd);
  }
  auto& e = dnnl_engine();
  st->src_user = memory(src_user, e, const_cast<void*>(bufs[0].data()));
  st->wei_user = memory(wei_user, e, const_cast<void*>(bufs[1].data()));
  st->dst_user = memory(dst_user, e, out.out->data());
  // Reorder only where oneDNN's choice differs from attune's layout.
  st->src = src_md == src_user ? st->src_user : memory(src_md, e);
  st->wei = wei_md == wei_user ? st->wei_user : memory(wei_md, e);
  st->dst = dst_md == dst_user ? st->dst_user : memory(dst_md, e);
  if (src_md != src_user) st->r_src = dnnl::reorder(st->src_user, st->src);
  if (wei_md != wei_user) st->r_wei = dnnl::reorder(st->wei_user, st->wei);
  if (dst_md != dst_user) st->r_dst = dnnl::reorder(st->dst, st->dst_user);

  State* p = st.get();
  out.run = [p] {
    // Weights too: attune's kernel receives plain weights on every call, and BASELINES.md's
    // "+reorders" figures count them.
    if (p->r_src) p->r_src->execute(p->s, p->src_user, p->src);
    if (p->r_wei) p->r_wei->execute(p->s, p->wei_user, p->wei);
    p->prim.execute(p->s, {{DNNL_ARG_SRC, p->src}, {DNNL_ARG_WEIGHTS, p->wei}, {DNNL_ARG_DST, p->dst}});
    if (p->r_dst) p->r_dst->execute(p->s, p->dst, p->dst_user);
    p->s.wait();
  };
  return {std::move(out)};
}

}  // namespace

std::string dnnl_version() {
  const dnnl_version_t* v = dnnl::version();
  std::string rt = v->cpu_runtime == DNNL_RUNTIME_OMP ? "OMP" : v->cpu_runtime == DNNL_RUNTIME_TBB ? "TBB" : "other";
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) +
         " (cpu runtime " + rt + ")";
}

std::vector<Baseline> dnnl_baselines(const Workload& w, const std::vector<attune::Buffer>& bufs) {
  if (w.op.multi_stage()) return dnnl_fused_baselines(w, bufs);
  if (!w.op.epilogue.empty()) return {};
  for (const auto& b : bufs)
    if (b.dtype() != attune::DType::f32) return {};
  if (w.family == "gemm" || w.family == "batch_matmul") return matmul(w, bufs);
  if (w.family == "conv2d_capsule") return {};
  return conv(w, bufs);
}

}  // namespace bench
