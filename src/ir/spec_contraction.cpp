// spec_contraction.cpp — build_contraction(): a parsed single `+=` product statement (with its
// epilogue lines) checked and assembled into a contraction Op (op.hpp): declared tensors, ranks,
// variable extents, output bounds and dtype combinations.
#include <algorithm>
#include <string>

#include "extent_inference.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "spec_parse_tree.hpp"

namespace attune::ir {

namespace {

void collect_reads(const PExpr& e, std::vector<PAccess>& out) {
  if (e.node.kind == Expr::Kind::load) out.push_back(e.read);
  for (const auto& a : e.args) collect_reads(a, out);
}

void note_vars(const Access& a, std::vector<std::string>& order) {
  for (const auto& e : a.index)
    for (const auto& [v, c] : e.terms)
      if (std::find(order.begin(), order.end(), v) == order.end()) order.push_back(v);
}

void check_dtypes(const ParsedSpec& spec, const PAccess& output, const std::vector<PAccess>& inputs,
                  const Tensor& out) {
  std::vector<DType> in;
  for (const auto& pa : inputs) in.push_back(spec.tensor(pa.a.tensor)->t.dtype);
  auto all = [&](auto pred) { return std::all_of(in.begin(), in.end(), pred); };
  auto count = [&](DType t) { return std::count(in.begin(), in.end(), t); };
  DType o = out.dtype;
  bool ok = (all([](DType t) { return t == DType::f32; }) && o == DType::f32) ||
            (all([](DType t) { return t == DType::f16; }) && (o == DType::f16 || o == DType::f32)) ||
            (all([](DType t) { return t == DType::i8 || t == DType::u8; }) && count(DType::i8) >= 1 &&
             count(DType::u8) <= 1 && o == DType::i32);
  if (ok) return;
  std::string s;
  for (auto t : in) s += (s.empty() ? "" : " * ") + std::string(dtype_name(t));
  spec_error(output.pos, "unsupported dtypes " + s + " -> " + std::string(dtype_name(o)) +
                             " (allowed: f32*f32->f32, f16*f16->f32 or f16, i8*i8->i32, u8*i8->i32)");
}

// Every declared tensor is used; the dtypes combine; the bias has the output's dtype.
void check_tensors_used_and_typed(const ParsedSpec& spec, const PAccess& out, const std::vector<PAccess>& inputs,
                                  const Tensor& out_t) {
  const auto& bias = spec.bias;
  std::vector<PAccess> epilogue_reads;
  if (spec.epilogue_value) collect_reads(spec.epilogue_value->value, epilogue_reads);
  for (const auto& d : spec.tensors) {
    bool used = d.t.name == out.a.tensor || (bias && bias->a.tensor == d.t.name);
    for (const auto& pa : inputs) used = used || pa.a.tensor == d.t.name;
    for (const auto& pa : epilogue_reads) used = used || pa.a.tensor == d.t.name;
    if (!used) spec_error(d.pos, "tensor '" + d.t.name + "' is declared but not used");
  }
  check_dtypes(spec, out, inputs, out_t);
  if (bias) {
    DType bt = spec.tensor(bias->a.tensor)->t.dtype;
    if (bt != out_t.dtype)
      spec_error(bias->pos, "bias '" + bias->a.tensor + "' is " + std::string(dtype_name(bt)) + " but the output '" +
                                out_t.name + "' is " + std::string(dtype_name(out_t.dtype)) + "; they must match");
  }
}

// `epilogue OUT[idx] = value`: it writes the contraction's own output element, reads the output
// only there (the value computed so far), indexes by output variables only, and is float math.
void check_epilogue_value(const ParsedSpec& spec, const PStage& ev, const PAccess& out,
                          const std::vector<std::string>& spatial) {
  if (!(ev.out.a == out.a))
    spec_error(ev.out.pos, "the epilogue expression writes " + ev.out.a.str() + "; it must write the element " +
                               out.a.str() + " the contraction computes");
  if (spec.check_access(out).t.dtype != DType::f32)
    spec_error(ev.out.pos, "an epilogue expression needs an f32 output; '" + out.a.tensor + "' is " +
                               std::string(dtype_name(spec.check_access(out).t.dtype)));
  std::vector<PAccess> reads;
  collect_reads(ev.value, reads);
  for (const auto& pa : reads) {
    spec.check_access(pa);
    if (pa.a.tensor == out.a.tensor && !(pa.a == out.a))
      spec_error(pa.pos, "the epilogue reads the output only at the element it writes (" + out.a.str() + ")");
    for (std::size_t d = 0; d < pa.a.index.size(); ++d)
      for (const auto& [v, c] : pa.a.index[d].terms)
        if (std::find(spatial.begin(), spatial.end(), v) == spatial.end())
          spec_error(pa.index_pos[d], "epilogue index uses '" + v + "', which does not index the output");
  }
}

}  // namespace

Op build_contraction(const ParsedSpec& spec) {
  if (spec.stages.empty()) spec_error(spec.end, "missing compute statement (such as C[m, n] += A[m, k] * B[k, n])");
  const PStage& stage = spec.stages[0];
  if (spec.stages.size() > 1 || stage.reduce != Reduce::sum || !is_product_of_reads(stage.value)) {
    const SrcPos at = spec.bias ? spec.bias->pos : spec.epilogue_value ? spec.epilogue_value->out.pos : spec.relu_pos;
    spec_error(at,
               "'epilogue' lines apply to a single contraction (C[m, n] += A[m, k] * B[k, n]); with other "
               "statements write the bias and relu as a further statement, e.g. Y[m, n] = relu(C[m, n] + Bias[n])");
  }
  const PAccess& out = stage.out;
  std::vector<PAccess> inputs_;
  collect_reads(stage.value, inputs_);
  const auto& bias_ = spec.bias;
  const bool relu_ = spec.relu;
  const auto& var_decls_ = spec.vars;
  const auto& tensors_ = spec.tensors;
  const Tensor& out_t = spec.check_access(out).t;
  for (const auto& pa : inputs_) {
    spec.check_access(pa);
    if (pa.a.tensor == out.a.tensor) spec_error(pa.pos, "tensor '" + pa.a.tensor + "' is both the output and an input");
  }
  if (bias_) {
    spec.check_access(*bias_);
    if (bias_->a.tensor == out.a.tensor) spec_error(bias_->pos, "bias tensor '" + bias_->a.tensor + "' is the output");
  }
  for (std::size_t d = 0; d < out.a.index.size(); ++d)
    if (out.a.index[d].divisor != 1)
      spec_error(out.index_pos[d], "output index '" + out.a.index[d].str() + "' must not divide");

  std::vector<std::string> spatial, reduction;
  note_vars(out.a, spatial);
  std::vector<std::string> read;
  for (const auto& pa : inputs_) note_vars(pa.a, read);
  for (const auto& v : read)
    if (std::find(spatial.begin(), spatial.end(), v) == spatial.end()) reduction.push_back(v);
  if (bias_) {
    for (std::size_t d = 0; d < bias_->a.index.size(); ++d)
      for (const auto& [v, c] : bias_->a.index[d].terms)
        if (std::find(spatial.begin(), spatial.end(), v) == spatial.end())
          spec_error(bias_->index_pos[d], "bias index uses '" + v + "', which does not index the output");
  }
  if (spec.epilogue_value) check_epilogue_value(spec, *spec.epilogue_value, out, spatial);
  for (const auto& d : var_decls_) {
    bool used = std::find(spatial.begin(), spatial.end(), d.name) != spatial.end() ||
                std::find(reduction.begin(), reduction.end(), d.name) != reduction.end();
    if (!used) spec_error(d.pos, "variable '" + d.name + "' is declared but not used");
  }

  Op op;
  op.name = spec.label.value_or("");
  for (const auto& d : tensors_) op.tensors.push_back(d.t);
  op.output = out.a;
  for (const auto& pa : inputs_) op.inputs.push_back(pa.a);
  if (bias_) op.epilogue.bias = bias_->a;
  op.epilogue.relu = relu_;
  if (spec.epilogue_value) op.epilogue.value = spec.epilogue_value->value.to_expr();

  auto add_var = [&](const std::string& v, bool red) {
    op.vars.push_back(IterVar{v, variable_extent(spec, op.tensors, op.output, op.inputs, op.epilogue.bias, v), red});
  };
  for (const auto& v : spatial) add_var(v, false);
  for (const auto& v : reduction) add_var(v, true);

  __int128 domain = 1;
  for (const auto& v : op.vars) {
    domain *= v.extent;
    if (domain > kMaxDomain) spec_error(out.pos, "iteration domain too large (more than 2^62 points)");
  }

  check_output_range(out, out_t, [&](const std::string& v) { return op.var(v).extent; });

  check_tensors_used_and_typed(spec, out, inputs_, out_t);
  return op;
}

}  // namespace attune::ir
