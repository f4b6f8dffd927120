#include "codegen/cuda/vendor_match.hpp"

#include <string>
#include <vector>

namespace attune::cuda {

namespace {

// The single variable names of an access, or nullopt when some index is not a bare variable.
std::optional<std::vector<std::string>> vars_of(const Access& a) {
  std::vector<std::string> v;
  for (const auto& e : a.index) {
    auto s = e.as_single_var();
    if (!s) return std::nullopt;
    v.push_back(*s);
  }
  return v;
}

// `out * stride + red * dilation - pad`: the sliding-window index of one spatial dimension.
bool window(const AffineExpr& e, const std::string& out, const std::string& red, std::int64_t& stride,
            std::int64_t& dil, std::int64_t& pad) {
  if (e.divisor != 1 || e.terms.size() != 2 || e.coeff(out) <= 0 || e.coeff(red) <= 0 || e.constant > 0) return false;
  stride = e.coeff(out);
  dil = e.coeff(red);
  pad = -e.constant;
  return true;
}

}  // namespace

std::optional<GemmShape> match_gemm(const Op& op) {
  if (op.inputs.size() != 2 || !op.epilogue.empty()) return std::nullopt;
  auto c = vars_of(op.output), a = vars_of(op.inputs[0]), b = vars_of(op.inputs[1]);
  if (!c || !a || !b || c->size() != 2 || a->size() != 2 || b->size() != 2) return std::nullopt;
  if ((*a)[0] != (*c)[0] || (*b)[1] != (*c)[1] || (*a)[1] != (*b)[0] || !op.is_reduction((*a)[1])) return std::nullopt;
  if (op.vars.size() != 3) return std::nullopt;
  return GemmShape{op.var((*c)[0]).extent, op.var((*c)[1]).extent, op.var((*a)[1]).extent};
}

std::optional<Conv2dShape> match_conv2d(const Op& op) {
  if (op.inputs.size() != 2 || !op.epilogue.empty() || op.vars.size() != 7) return std::nullopt;
  const Access &o = op.output, &in = op.inputs[0], &wt = op.inputs[1];
  auto ov = vars_of(o), wv = vars_of(wt);
  if (!ov || !wv || ov->size() != 4 || wv->size() != 4 || in.index.size() != 4) return std::nullopt;
  Conv2dShape s;
  const Tensor& I = op.tensor(in.tensor);
  std::string n, k, p, q, c, r, sv;
  if ((*wv)[0] == (*ov)[1]) {  // NCHW: W[k, c, r, s]
    n = (*ov)[0], k = (*ov)[1], p = (*ov)[2], q = (*ov)[3];
    c = (*wv)[1], r = (*wv)[2], sv = (*wv)[3];
    if (in.index[0].as_single_var() != n || in.index[1].as_single_var() != c) return std::nullopt;
    if (!window(in.index[2], p, r, s.stride_h, s.dil_h, s.pad_h) ||
        !window(in.index[3], q, sv, s.stride_w, s.dil_w, s.pad_w))
      return std::nullopt;
    s.h = I.shape[2], s.w = I.shape[3];
  } else if ((*wv)[3] == (*ov)[3]) {  // NHWC: W[r, s, c, k]
    s.nhwc = true;
    n = (*ov)[0], p = (*ov)[1], q = (*ov)[2], k = (*ov)[3];
    r = (*wv)[0], sv = (*wv)[1], c = (*wv)[2];
    if (in.index[0].as_single_var() != n || in.index[3].as_single_var() != c) return std::nullopt;
    if (!window(in.index[1], p, r, s.stride_h, s.dil_h, s.pad_h) ||
        !window(in.index[2], q, sv, s.stride_w, s.dil_w, s.pad_w))
      return std::nullopt;
    s.h = I.shape[1], s.w = I.shape[2];
  } else {
    return std::nullopt;
  }
  s.n = op.var(n).extent, s.c = op.var(c).extent, s.k = op.var(k).extent;
  s.r = op.var(r).extent, s.s = op.var(sv).extent;
  return s;
}

}  // namespace attune::cuda
