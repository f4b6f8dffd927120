// spec_parse_tree.cpp — look-ups and checks shared by the two builders of parsed specs.
#include "spec_parse_tree.hpp"

#include <algorithm>

#include "extent_inference.hpp"

namespace attune::ir {

std::string at_str(SrcPos p) { return std::to_string(p.line) + ":" + std::to_string(p.col); }

Expr PExpr::to_expr() const {
  Expr e = node;
  if (e.kind == Expr::Kind::load) e.load = read.a;
  for (const auto& a : args) e.args.push_back(a.to_expr());
  return e;
}

const TensorDecl* ParsedSpec::tensor(const std::string& name) const {
  for (const auto& d : tensors)
    if (d.t.name == name) return &d;
  return nullptr;
}

const VarDecl* ParsedSpec::var(const std::string& name) const {
  for (const auto& d : vars)
    if (d.name == name) return &d;
  return nullptr;
}

const TensorDecl& ParsedSpec::check_access(const PAccess& pa) const {
  const TensorDecl* d = tensor(pa.a.tensor);
  if (!d) spec_error(pa.pos, "undeclared tensor '" + pa.a.tensor + "'");
  if (d->t.shape.size() != pa.a.index.size())
    spec_error(pa.pos, "tensor '" + pa.a.tensor + "' has rank " + std::to_string(d->t.shape.size()) +
                           " but is indexed with " + std::to_string(pa.a.index.size()) + " indices");
  return *d;
}

void check_output_range(const PAccess& out, const Tensor& t,
                        const std::function<std::int64_t(const std::string&)>& extent_of) {
  for (std::size_t d = 0; d < out.a.index.size(); ++d) {
    const AffineExpr& e = out.a.index[d];
    __int128 lo = e.constant, hi = e.constant;
    for (const auto& [v, c] : e.terms) {
      __int128 span = static_cast<__int128>(c) * (extent_of(v) - 1);
      (span < 0 ? lo : hi) += span;
    }
    if (lo < 0 || hi >= t.shape[d])
      spec_error(out.index_pos[d],
                 "output index '" + e.str() + "' ranges over [" + std::to_string(static_cast<long long>(lo)) + ", " +
                     std::to_string(static_cast<long long>(hi)) + "], outside dimension " + std::to_string(d) +
                     " of '" + t.name + "' (size " + std::to_string(t.shape[d]) + ")");
  }
}

std::int64_t variable_extent(const ParsedSpec& spec, const std::vector<Tensor>& tensors, const Access& out,
                             const std::vector<Access>& ins, const std::optional<Access>& bias, const std::string& v) {
  if (const VarDecl* d = spec.var(v)) return d->extent;
  const auto inf = infer_extent(tensors, out, ins, bias, v);
  const SrcPos p = spec.first_use.at(v);
  if (!inf.ambiguity.empty())
    spec_error(p, "extent of '" + v + "' ambiguous (" + inf.ambiguity + "); declare it with 'var " + v + " < N'");
  if (!inf.extent)
    spec_error(p, "no extent for variable '" + v + "': it indexes no tensor dimension alone; declare it with 'var " +
                      v + " < N'");
  return *inf.extent;
}

bool is_product_of_reads(const PExpr& e) {
  if (e.node.kind == Expr::Kind::load) return true;
  return e.node.kind == Expr::Kind::binary && e.node.binary_fn == BinaryFn::mul && is_product_of_reads(e.args[0]) &&
         is_product_of_reads(e.args[1]);
}

bool ParsedSpec::is_contraction() const {
  if (bias || relu || epilogue_value) return true;  // epilogue lines belong to contractions (build_contraction says so)
  return stages.size() == 1 && stages[0].reduce == Reduce::sum && is_product_of_reads(stages[0].value);
}

}  // namespace attune::ir
