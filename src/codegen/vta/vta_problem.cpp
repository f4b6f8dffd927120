// Which ops the VTA backend takes, its knob space, and which config a target argument names.
//
// Only int8 conv2d (NCHW) and int8 GEMM reach the GEMM core here; they are recognised from
// the op's accesses (not its label), so a hand-written spec of the same computation works too.
#include <algorithm>

#include "codegen/codegen_vta.hpp"
#include "ir/error.hpp"

namespace attune {

namespace {

[[noreturn]] void refuse(const Op& op, const std::string& why) {
  throw Error("op '" + op.name + "' cannot run on VTA: " + why +
              " (VTA takes conv2d NCHW and gemm with dtype=int8, no epilogue)");
}

// The plain variable an index is, or "" when it is an expression.
std::string var_of(const AffineExpr& e) { return e.as_single_var().value_or(""); }

// `coeff_out * out + 1 * tap - pad`: returns false when the index has another shape.
bool window_of(const AffineExpr& e, const std::string& out, const std::string& tap, std::int64_t& stride,
               std::int64_t& pad) {
  if (e.divisor != 1 || e.terms.size() != 2 || e.coeff(tap) != 1 || e.coeff(out) <= 0) return false;
  stride = e.coeff(out);
  pad = -e.constant;
  return pad >= 0;
}

void check_dtypes(const Op& op, const Access& a, const Access& b) {
  if (op.tensor(a.tensor).dtype != DType::i8 || op.tensor(b.tensor).dtype != DType::i8 ||
      op.tensor(op.output.tensor).dtype != DType::i32)
    refuse(op, "inputs must be i8 and the output i32");
}

VtaProblem conv_of(const Op& op) {
  VtaProblem p;
  p.kind = VtaOpKind::conv2d;
  const auto& o = op.output.index;
  const std::string n = var_of(o[0]), k = var_of(o[1]), y = var_of(o[2]), x = var_of(o[3]);
  if (n.empty() || k.empty() || y.empty() || x.empty()) refuse(op, "the output index is not [n, k, p, q]");
  // The weight is the input indexed by the output channel first.
  const bool first_is_weight = var_of(op.inputs[0].index[0]) == k;
  const Access& in = op.inputs[first_is_weight ? 1 : 0];
  const Access& wt = op.inputs[first_is_weight ? 0 : 1];
  if (in.index.size() != 4 || wt.index.size() != 4) refuse(op, "conv2d tensors must be 4-D (NCHW)");
  const std::string c = var_of(wt.index[1]), r = var_of(wt.index[2]), s = var_of(wt.index[3]);
  if (var_of(wt.index[0]) != k || c.empty() || r.empty() || s.empty())
    refuse(op, "the weight index is not [k, c, r, s] (groups > 1 are not supported)");
  if (var_of(in.index[0]) != n || var_of(in.index[1]) != c) refuse(op, "the input index is not [n, c, ., .]");
  std::int64_t sh = 0, ph = 0, sw = 0, pw = 0;
  if (!window_of(in.index[2], y, r, sh, ph) || !window_of(in.index[3], x, s, sw, pw))
    refuse(op, "the input rows/columns are not p*stride + r - pad (dilation must be 1)");
  if (sh != sw || ph != pw) refuse(op, "stride and pad must be equal on both axes");
  check_dtypes(op, in, wt);
  p.in_tensor = op.tensor_index(in.tensor);
  p.wgt_tensor = op.tensor_index(wt.tensor);
  p.out_tensor = op.tensor_index(op.output.tensor);
  const auto& is = op.tensor(in.tensor).shape;
  p.n = is[0], p.c = is[1], p.h = is[2], p.w = is[3];
  p.k = op.var(k).extent, p.r = op.var(r).extent, p.s = op.var(s).extent;
  p.stride = sh, p.pad = ph;
  p.oh = op.var(y).extent, p.ow = op.var(x).extent;
  // The lowering reads input rows up to (oh-1)*stride + r - pad; beyond H+pad would be a
  // window the template never makes.
  if ((p.oh - 1) * p.stride + p.r > p.h + 2 * p.pad || (p.ow - 1) * p.stride + p.s > p.w + 2 * p.pad)
    refuse(op, "the output is larger than the padded input allows");
  return p;
}

VtaProblem gemm_of(const Op& op) {
  VtaProblem p;
  p.kind = VtaOpKind::gemm;
  const std::string m = var_of(op.output.index[0]), n = var_of(op.output.index[1]);
  if (m.empty() || n.empty()) refuse(op, "the output index is not [m, n]");
  const bool first_is_a = var_of(op.inputs[0].index[0]) == m;
  const Access& a = op.inputs[first_is_a ? 0 : 1];
  const Access& b = op.inputs[first_is_a ? 1 : 0];
  if (a.index.size() != 2 || b.index.size() != 2) refuse(op, "gemm tensors must be 2-D");
  const std::string k = var_of(a.index[1]);
  if (var_of(a.index[0]) != m || k.empty() || !op.is_reduction(k) || var_of(b.index[0]) != k || var_of(b.index[1]) != n)
    refuse(op, "the accesses are not C[m, n] += A[m, k] * B[k, n]");
  check_dtypes(op, a, b);
  p.in_tensor = op.tensor_index(a.tensor);
  p.wgt_tensor = op.tensor_index(b.tensor);
  p.out_tensor = op.tensor_index(op.output.tensor);
  // A 1x1 convolution over a batch of m rows: c = k (reduction), k = n (output channels).
  p.n = op.var(m).extent;
  p.c = op.var(k).extent;
  p.k = op.var(n).extent;
  return p;
}

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> d;
  for (std::int64_t i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

// Divisors of the blocked extent; {1} when the extent is not a multiple of the block (such an
// op fails to compile with innermost_padding whatever the tile).
std::vector<std::int64_t> block_divisors(std::int64_t extent, std::int64_t block) {
  if (extent % block != 0) return {1};
  return divisors(extent / block);
}

}  // namespace

VtaProblem vta_problem_of(const Op& op) {
  if (op.multi_stage()) refuse(op, "it is a multi-stage op (VTA runs GEMM and conv2d contractions)");
  if (!op.epilogue.empty()) refuse(op, "it has an epilogue");
  if (op.inputs.size() != 2) refuse(op, "it does not multiply two inputs");
  const std::size_t rank = op.output.index.size();
  if (rank == 4) return conv_of(op);
  if (rank == 2) return gemm_of(op);
  refuse(op, "its output has rank " + std::to_string(rank));
}

namespace {

// Each knob's member, by the name the schedule declares it under (accelerator_knobs("vta")).
template <class Knobs, class Visit>
void each_knob(Knobs& k, const Visit& visit) {
  visit("tile_b", k.tile_b);
  visit("tile_h", k.tile_h);
  visit("tile_w", k.tile_w);
  visit("tile_ci", k.tile_ci);
  visit("tile_co", k.tile_co);
  visit("oc_nthread", k.oc_nthread);
  visit("h_nthread", k.h_nthread);
}

}  // namespace

nlohmann::json VtaKnobs::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  each_knob(*this, [&](const char* name, std::int64_t v) { j[name] = v; });
  return j;
}

VtaKnobs VtaKnobs::of(const AcceleratorKnobs& named) {
  if (named.target != "vta") throw Error("knobs of target '" + named.target + "' are not VTA's");
  VtaKnobs k;
  each_knob(k, [&](const char* name, std::int64_t& v) { v = named.at(name); });
  return k;
}

std::vector<std::pair<std::string, std::vector<std::int64_t>>> vta_knob_choices(const VtaProblem& p,
                                                                                const VtaConfig& cfg) {
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> k;
  k.push_back({"tile_b", block_divisors(p.n, cfg.batch())});
  if (p.kind == VtaOpKind::conv2d) {
    k.push_back({"tile_h", divisors(p.oh)});
    k.push_back({"tile_w", divisors(p.ow)});
  }
  k.push_back({"tile_ci", block_divisors(p.c, cfg.block_in())});
  k.push_back({"tile_co", block_divisors(p.k, cfg.block_out())});
  k.push_back({"oc_nthread", {1, 2}});
  k.push_back({"h_nthread", {1, 2}});
  return k;
}

bool is_vta_target_arg(std::string_view t) { return t == "vta" || t.starts_with("vta:"); }

VtaConfig vta_config_for(std::string_view t) {
  if (t == "vta") return load_vta_config(vta_target_path("default"));
  if (!t.starts_with("vta:") || t.size() == 4)
    throw Error("target '" + std::string(t) + "' is not a VTA target (vta, vta:NAME or vta:PATH)");
  const std::string rest(t.substr(4));
  const bool path = rest.find('/') != std::string::npos || rest.ends_with(".json");
  return load_vta_config(path ? rest : vta_target_path(rest));
}

}  // namespace attune
