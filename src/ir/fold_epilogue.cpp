// fold_epilogue.cpp — see fold_epilogue.hpp.
#include "ir/fold_epilogue.hpp"

#include <algorithm>
#include <map>

namespace attune {

namespace {

void collect_reads(const Expr& e, std::vector<Access>& out) {
  for_each_read(e, [&](const Access& a) { out.push_back(a); });
}

// The variables of `out`'s indices when each index is a distinct plain variable, in order.
std::optional<std::vector<std::string>> plain_vars(const Access& out) {
  std::vector<std::string> vars;
  for (const auto& ix : out.index) {
    auto v = ix.as_single_var();
    if (!v || std::find(vars.begin(), vars.end(), *v) != vars.end()) return std::nullopt;
    vars.push_back(*v);
  }
  return vars;
}

std::int64_t extent_of(const Stage& st, const std::string& v) {
  for (const auto& iv : st.vars)
    if (iv.name == v) return iv.extent;
  return -1;
}

// `a` with every variable renamed at once through `to` (so that swapped names stay swapped).
Access renamed(const Access& a, const std::map<std::string, std::string>& to) {
  Access r{a.tensor, {}};
  for (const auto& ix : a.index) {
    AffineExpr e = AffineExpr::constant_of(ix.constant);
    for (const auto& [v, c] : ix.terms) e.add_term(to.at(v), c);
    e.divisor = ix.divisor;
    r.index.push_back(std::move(e));
  }
  return r;
}

// Each stage variable's contraction variable, from the stage's reads of the contraction's result
// and of earlier pointwise intermediates (`dims`: the contraction variable behind each of their
// dimensions). Nullopt when a read is not by distinct plain variables, two reads disagree, or a
// variable of the stage is left without one.
std::optional<std::map<std::string, std::string>> stage_to_contraction(
    const Stage& st, const std::map<std::string, std::vector<std::string>>& dims) {
  std::map<std::string, std::string> to;
  bool ok = true;
  for_each_read(st.value, [&](const Access& a) {
    const auto it = dims.find(a.tensor);
    if (it == dims.end() || !ok) return;
    const auto vars = plain_vars(a);
    if (!vars) {
      ok = false;
      return;
    }
    for (std::size_t d = 0; d < vars->size(); ++d) {
      const auto [at, fresh] = to.emplace((*vars)[d], it->second[d]);
      ok = ok && (fresh || at->second == it->second[d]);
    }
  });
  if (!ok) return std::nullopt;
  std::vector<std::string> images;
  for (const auto& v : st.vars) {
    if (!to.count(v.name)) return std::nullopt;
    images.push_back(to.at(v.name));
  }
  std::sort(images.begin(), images.end());
  if (std::adjacent_find(images.begin(), images.end()) != images.end()) return std::nullopt;
  return to;
}

// Rewrites the reads of stage value `e` into the contraction's variables: an earlier pointwise
// intermediate becomes its definition, the contraction's result `acc`, any other read is renamed.
void rewrite(Expr& e, const std::map<std::string, std::string>& to, const Access& acc,
             const std::map<std::string, Expr>& defs) {
  if (e.kind == Expr::Kind::load) {
    if (e.load.tensor == acc.tensor)
      e = Expr::read(acc);
    else if (defs.count(e.load.tensor))
      e = defs.at(e.load.tensor);
    else
      e.load = renamed(e.load, to);
    return;
  }
  for (auto& x : e.args) rewrite(x, to, acc, defs);
}

}  // namespace

bool product_of_reads(const Expr& e) {
  if (e.kind == Expr::Kind::load) return true;
  return e.kind == Expr::Kind::binary && e.binary_fn == BinaryFn::mul && product_of_reads(e.args[0]) &&
         product_of_reads(e.args[1]);
}

std::optional<Op> fold_epilogue(const Op& op) {
  if (!op.multi_stage() || op.stages.size() < 2) return std::nullopt;
  const Stage& head = op.stages.front();
  const std::string& result = head.out.tensor;
  const Tensor* result_t = op.find_tensor(result);
  if (head.reduce != Reduce::sum || !product_of_reads(head.value) || !result_t || result_t->dtype != DType::f32)
    return std::nullopt;
  const auto spatial = plain_vars(head.out);
  if (!spatial) return std::nullopt;
  for (std::size_t d = 0; d < spatial->size(); ++d)
    if (extent_of(head, (*spatial)[d]) != result_t->shape[d]) return std::nullopt;

  std::vector<Access> inputs;
  collect_reads(head.value, inputs);
  for (const auto& a : inputs)
    if (op.tensor_index(a.tensor) < 0 || a.tensor == op.output.tensor) return std::nullopt;  // reads an intermediate

  // The contraction variable behind each dimension of the result and of each later stage's
  // output; a stage may write its output permuted (an NHWC sum stored NCHW).
  std::map<std::string, std::vector<std::string>> dims{{result, *spatial}};
  std::map<std::string, Expr> defs;  // each pointwise intermediate's value in the contraction's variables
  const Access acc{result, head.out.index};
  for (std::size_t k = 1; k < op.stages.size(); ++k) {
    const Stage& st = op.stages[k];
    const bool last = k + 1 == op.stages.size();
    const Tensor* out_t = op.find_tensor(st.out.tensor);
    const auto point = plain_vars(st.out);
    if (st.reduce != Reduce::none || !point || point->size() != spatial->size() || !out_t ||
        out_t->dtype != DType::f32 || (st.out.tensor == op.output.tensor) != last)
      return std::nullopt;
    const auto to = stage_to_contraction(st, dims);
    if (!to) return std::nullopt;
    std::vector<std::string> out_dims;
    for (std::size_t d = 0; d < point->size(); ++d) {
      const std::string& c = to->at((*point)[d]);
      if (extent_of(st, (*point)[d]) != extent_of(head, c) || out_t->shape[d] != extent_of(head, c))
        return std::nullopt;
      out_dims.push_back(c);
    }
    Expr v = st.value;
    rewrite(v, *to, acc, defs);
    defs[st.out.tensor] = std::move(v);
    dims[st.out.tensor] = std::move(out_dims);
  }

  Op folded;
  folded.name = op.name;
  folded.tensors = op.tensors;
  folded.output = Access{op.output.tensor, {}};
  for (const auto& v : dims.at(op.output.tensor)) {
    folded.output.index.push_back(AffineExpr::var(v));
    folded.vars.push_back(*std::find_if(head.vars.begin(), head.vars.end(), [&](const IterVar& iv) { return iv.name == v; }));
  }
  for (const auto& iv : head.vars)
    if (iv.reduction) folded.vars.push_back(iv);
  folded.inputs = inputs;
  Expr value = defs.at(op.output.tensor);
  for_each_read(value, [&](Access& a) {
    if (a.tensor == result) a = folded.output;
  });
  folded.epilogue.value = std::move(value);
  return folded;
}

}  // namespace attune
