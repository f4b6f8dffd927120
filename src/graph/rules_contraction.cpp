// rules_contraction.cpp — Conv, ConvTranspose, MatMul and Gemm (op_rules.hpp).
//
// Each writes one contraction statement into an intermediate; what follows (bias, alpha/beta,
// activation) is an expression over it, which finish() turns back into epilogue lines when it
// is only a bias and a relu (task_writer.hpp, Epilogue).
#include "graph/conv_geometry.hpp"
#include "graph/op_rules.hpp"
#include "ir/access.hpp"
#include "ir/error.hpp"
#include "ir/template_params.hpp"

namespace attune::graph {

namespace {

std::string idx(const AffineExpr& e) { return e.str(); }

Operand stored_result(const std::string& acc, const Shape& shape, const Index& out_vars,
                      const std::vector<int>& layout = {}) {
  Operand r = TaskWriter::read(acc, shape, layout);
  r.epi = Epilogue{acc, out_vars, "", false};
  return r;
}

// Conv and ConvTranspose, grouped, 1 to 3 spatial axes, layout N C spatial.
void infer_conv(Graph& g, int n, WindowKind kind) {
  const Shape& x = g.in(n, 0).shape;
  const Shape& w = g.in(n, 1).shape;
  const auto win = windows(g, n, kind);
  const std::int64_t G = g.attr_int(n, "group", 1);
  if (G < 1 || x[1] % G != 0) node_error(g, n, "group " + std::to_string(G) + " does not divide the input channels");
  std::int64_t K = 0;
  if (kind == WindowKind::conv) {
    if (w[1] * G != x[1]) node_error(g, n, "weight " + shape_str(w) + " does not match input channels " + std::to_string(x[1]) + " with group " + std::to_string(G));
    K = w[0];
    if (K % G != 0) node_error(g, n, "group " + std::to_string(G) + " does not divide the output channels");
  } else {
    if (w[0] != x[1]) node_error(g, n, "weight " + shape_str(w) + " does not match input channels " + std::to_string(x[1]));
    K = w[1] * G;
  }
  if (g.has_input(n, 2) && g.in(n, 2).shape != Shape{K}) node_error(g, n, "bias must have shape [" + std::to_string(K) + "]");
  Shape out{x[0], K};
  for (const auto& a : win) out.push_back(a.out);
  g.out_mut(n).shape = out;
  g.out_mut(n).type = ElemType::f32;
}

Operand lower_conv_like(TaskWriter& w, const Graph& g, int n, const std::vector<Operand>& in, WindowKind kind) {
  const auto win = windows(g, n, kind);
  const Shape& out = g.out(n).shape;
  const std::int64_t G = g.attr_int(n, "group", 1), C = in[0].shape[1], K = out[1], Cg = C / G, Kg = K / G;
  const Operand X = w.materialize(in[0]), W = w.materialize(in[1]);
  const Index sp = w.vars(2 + win.size() + (G > 1 ? 1 : 0), 'v'), rd = w.vars(1 + win.size(), 'r');
  // sp: n, k, outputs..., [g]; rd: c, taps... A channel variable of extent 1 (depthwise: one
  // input and one output channel per group) is left out, so the channel is the group itself.
  const std::string g_var = G > 1 ? sp.back() : "";
  const bool use_k = !(G > 1 && Kg == 1), use_c = !(G > 1 && Cg == 1);
  auto channel = [&](const std::string& v, std::int64_t per, bool used) {
    if (G == 1) return AffineExpr::var(v);
    return used ? AffineExpr::var(g_var, per) + AffineExpr::var(v) : AffineExpr::var(g_var);
  };
  const AffineExpr kk = channel(sp[1], Kg, use_k), cc = channel(rd[0], Cg, use_c);
  w.extent(sp[0], out[0]);
  if (use_k) w.extent(sp[1], Kg);
  if (G > 1) w.extent(g_var, G);
  if (use_c) w.extent(rd[0], Cg);
  Index o{sp[0], idx(kk)}, x{sp[0], idx(cc)}, wt;
  wt = kind == WindowKind::conv ? Index{idx(kk), use_c ? rd[0] : "0"} : Index{idx(cc), use_k ? sp[1] : "0"};
  for (std::size_t a = 0; a < win.size(); ++a) {
    const std::string ov = sp[2 + a], tv = rd[1 + a];
    w.extent(ov, win[a].out);
    w.extent(tv, win[a].kernel);
    o.push_back(ov);
    AffineExpr e;
    if (kind == WindowKind::conv) {  // x = o*stride + t*dilation - pad
      e = AffineExpr::var(ov, win[a].stride) + AffineExpr::var(tv, win[a].dilation) + AffineExpr::constant_of(-win[a].pad_begin);
    } else {  // o = x*stride + t*dilation - pad, so x = (o + pad - t*dilation)/stride, exactly
      e = AffineExpr::var(ov) + AffineExpr::var(tv, -win[a].dilation) + AffineExpr::constant_of(win[a].pad_begin);
      e.divisor = win[a].stride;
    }
    x.push_back(idx(e));
    wt.push_back(tv);
  }
  const std::vector<int>& layout = g.out(n).layout;  // NHWC inside conv networks (layout.hpp)
  const std::string acc = w.local(out, layout);
  w.statement(acc, o, "+=", X.at(x) + " * " + W.at(wt), layout);
  Operand r = stored_result(acc, out, o, layout);
  if (in.size() > 2 && in[2].at) {
    // A stored bias stays an epilogue; an inlined constant makes the result an expression.
    std::optional<Epilogue> epi;
    if (!in[2].stored.empty()) epi = Epilogue{acc, o, in[2].at({idx(kk)}), false};
    r = {[a = r.at, bias = in[2].at](const Index& i) { return "(" + a(i) + " + " + bias({i[1]}) + ")"; }, out, "", false,
         epi};
  }
  return r;
}

void infer_matmul(Graph& g, int n) {
  Shape a = g.in(n, 0).shape, b = g.in(n, 1).shape;
  if (a.empty() || b.empty()) node_error(g, n, "MatMul of a scalar");
  const bool a1 = a.size() == 1, b1 = b.size() == 1;
  if (a1) a.insert(a.begin(), 1);
  if (b1) b.push_back(1);
  if (a.back() != b[b.size() - 2]) node_error(g, n, "inner dimensions differ: " + shape_str(g.in(n, 0).shape) + " x " + shape_str(g.in(n, 1).shape));
  Shape batch(std::max(a.size(), b.size()) - 2, 1);
  for (const Shape* s : {&a, &b})
    for (std::size_t k = 0; k + 2 < s->size(); ++k) {
      std::int64_t& o = batch[batch.size() - (s->size() - 2) + k];
      const std::int64_t d = (*s)[k];
      if (o != 1 && d != 1 && o != d) node_error(g, n, "batch dimensions do not broadcast");
      if (d != 1) o = d;
    }
  Shape out = batch;
  if (!a1) out.push_back(a[a.size() - 2]);
  if (!b1) out.push_back(b.back());
  g.out_mut(n).shape = out;
  g.out_mut(n).type = ElemType::f32;
}

Operand lower_matmul(TaskWriter& w, const Graph& g, int n, const std::vector<Operand>& in) {
  const Shape& out = g.out(n).shape;
  const bool a1 = in[0].shape.size() == 1, b1 = in[1].shape.size() == 1;
  const Operand A = w.materialize(in[0]), B = w.materialize(in[1]);
  const Index o = w.vars(out.size(), 'v'), r = w.vars(1, 'r');
  for (std::size_t k = 0; k < out.size(); ++k) w.extent(o[k], out[k]);
  w.extent(r[0], in[0].shape.back());
  const std::size_t batch = out.size() - (a1 ? 0 : 1) - (b1 ? 0 : 1);
  auto operand_index = [&](const Shape& s, bool vec, bool is_a) {
    Index i;
    const std::size_t own_batch = vec ? 0 : s.size() - 2;
    for (std::size_t k = 0; k < own_batch; ++k) i.push_back(s[k] == 1 ? "0" : o[batch - own_batch + k]);
    if (is_a) {
      if (!vec) i.push_back(o[batch]);
      i.push_back(r[0]);
    } else {
      i.push_back(r[0]);
      if (!vec) i.push_back(o.back());
    }
    return i;
  };
  const std::string acc = w.local(out);
  w.statement(acc, o, "+=", A.at(operand_index(in[0].shape, a1, true)) + " * " + B.at(operand_index(in[1].shape, b1, false)));
  return stored_result(acc, out, o);
}

void infer_gemm(Graph& g, int n) {
  const Shape& a = g.in(n, 0).shape;
  const Shape& b = g.in(n, 1).shape;
  if (a.size() != 2 || b.size() != 2) node_error(g, n, "Gemm needs 2-D A and B");
  const bool ta = g.attr_int(n, "transA", 0), tb = g.attr_int(n, "transB", 0);
  const std::int64_t M = ta ? a[1] : a[0], K = ta ? a[0] : a[1], Kb = tb ? b[1] : b[0], N = tb ? b[0] : b[1];
  if (K != Kb) node_error(g, n, "inner dimensions differ: " + shape_str(a) + " x " + shape_str(b));
  g.out_mut(n).shape = {M, N};
  g.out_mut(n).type = ElemType::f32;
  if (g.has_input(n, 2)) {  // C must broadcast to [M, N]
    const Shape& c = g.in(n, 2).shape;
    const Shape mn{M, N};
    bool ok = c.size() <= 2;
    for (std::size_t k = 0; ok && k < c.size(); ++k) ok = c[k] == 1 || c[k] == mn[2 - c.size() + k];
    if (!ok) node_error(g, n, "C of shape " + shape_str(c) + " does not broadcast to " + shape_str(mn));
  }
}

Operand lower_gemm(TaskWriter& w, const Graph& g, int n, const std::vector<Operand>& in) {
  const Shape& out = g.out(n).shape;
  const bool ta = g.attr_int(n, "transA", 0), tb = g.attr_int(n, "transB", 0);
  const double alpha = g.attr_real(n, "alpha", 1.0), beta = g.attr_real(n, "beta", 1.0);
  const Operand A = w.materialize(in[0]), B = w.materialize(in[1]);
  const Index o = w.vars(2, 'v'), r = w.vars(1, 'r');
  w.extent(o[0], out[0]);
  w.extent(o[1], out[1]);
  w.extent(r[0], ta ? in[0].shape[0] : in[0].shape[1]);
  const std::string acc = w.local(out);
  w.statement(acc, o, "+=", A.at(ta ? Index{r[0], o[0]} : Index{o[0], r[0]}) + " * " + B.at(tb ? Index{o[1], r[0]} : Index{r[0], o[1]}));
  Operand res = stored_result(acc, out, o);
  const bool has_c = in.size() > 2 && in[2].at && beta != 0;
  if (alpha == 1 && !has_c) return res;
  const Operand C = has_c ? broadcast_to(in[2], out) : Operand{};
  const std::string bias = has_c && alpha == 1 && beta == 1 && !in[2].stored.empty() ? C.at(o) : "";
  Operand e{[a = res.at, c = C.at, alpha, beta, has_c](const Index& i) {
              std::string v = alpha == 1 ? a(i) : "(" + ir::spec_number(alpha) + " * " + a(i) + ")";
              if (has_c) v = "(" + v + " + " + (beta == 1 ? c(i) : ir::spec_number(beta) + " * " + c(i)) + ")";
              return v;
            },
            out, "", false, std::nullopt};
  if (!bias.empty()) e.epi = Epilogue{acc, o, bias, false};
  return e;
}

}  // namespace

const std::vector<NamedRule>& contraction_rules() {
  static const std::vector<NamedRule> rules = {
      {"Conv", {OpClass::contraction, [](Graph& g, int n) { infer_conv(g, n, WindowKind::conv); }, nullptr,
                [](TaskWriter& w, const Graph& g, int n, const std::vector<Operand>& in) {
                  return lower_conv_like(w, g, n, in, WindowKind::conv);
                }}},
      {"ConvTranspose", {OpClass::contraction, [](Graph& g, int n) { infer_conv(g, n, WindowKind::conv_transpose); }, nullptr,
                         [](TaskWriter& w, const Graph& g, int n, const std::vector<Operand>& in) {
                           return lower_conv_like(w, g, n, in, WindowKind::conv_transpose);
                         }}},
      {"MatMul", {OpClass::contraction, infer_matmul, nullptr, lower_matmul}},
      {"Gemm", {OpClass::contraction, infer_gemm, nullptr, lower_gemm}},
  };
  return rules;
}

}  // namespace attune::graph
