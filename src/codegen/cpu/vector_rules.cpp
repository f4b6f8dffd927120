#include "codegen/cpu/vector_rules.hpp"

#include <algorithm>

#include "schedule/analysis.hpp"

namespace attune::cgen {

bool uses(const Access& a, const std::string& v) {
  return std::any_of(a.index.begin(), a.index.end(), [&](const AffineExpr& e) { return e.uses(v); });
}

bool uses_only_last(const Access& a, const std::string& v) {
  for (std::size_t d = 0; d + 1 < a.index.size(); ++d)
    if (a.index[d].uses(v)) return false;
  return !a.index.empty() && a.index.back().coeff(v) == 1 && a.index.back().divisor == 1;
}

std::vector<const Access*> accesses(const Stmt& s) {
  std::vector<const Access*> r{&s.dst};
  for (const auto& a : s.srcs) r.push_back(&a);
  // Update statements only carry the bias and the epilogue's value for a later write-back; they
  // do not read them. The epilogue's value is printed lane by lane (emit_vector_epilogue_value),
  // so its reads put no condition on a vector loop; a compute statement's value is its reads.
  const bool applies = s.kind == StmtKind::epilogue || (s.kind == StmtKind::writeback && s.epilogue);
  if (s.bias && applies) r.push_back(&*s.bias);
  if (s.kind == StmtKind::compute) for_each_read(s.value, [&](const Access& a) { r.push_back(&a); });
  return r;
}

bool access_vectorizable(const LoopNest& nest, const Access& a, const Stmt& s, const std::string& v) {
  const auto* b = nest.buffer(a.tensor);
  if (b->dtype != DType::f32) return false;
  if (!uses(a, v)) return &a != &s.dst;  // a store must vary with the loop
  if (!uses_only_last(a, v)) return false;
  if (b->kind == BufferKind::local) return true;
  // The contiguous dimension must not need a bounds check.
  const auto& e = a.index.back();
  auto r = sched::range_of(nest, e);
  for (const auto& g : s.guards)
    if (g.expr == e) r.hi = std::min(r.hi, g.bound - 1);
  return r.lo >= 0 && r.hi < b->shape.back();
}

bool stmt_vectorizable(const LoopNest& nest, const Stmt& s, const std::string& v) {
  for (const auto& g : s.guards)
    if (g.expr.uses(v)) return false;
  for (const Access* a : accesses(s))
    if (!access_vectorizable(nest, *a, s, v)) return false;
  return true;
}

bool stmt_scatterable(const LoopNest& nest, const Stmt& s, const std::string& v) {
  if (s.kind != StmtKind::writeback && s.kind != StmtKind::copy) return false;
  const auto* d = nest.buffer(s.dst.tensor);
  if (d->dtype != DType::f32 || !uses(s.dst, v)) return false;
  return access_vectorizable(nest, s.srcs.at(0), s, v);
}

}  // namespace attune::cgen
