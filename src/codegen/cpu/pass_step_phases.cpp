// step_phases: stepped loops for strided reads, the taps of a transposed convolution.
//
// A read like I[(p - r + 1)/2] holds a value only where 2 divides p - r + 1; everywhere else the
// product is zero and the update is skipped. Iterating r over every value and testing each one
// wastes (stride - 1)/stride of the loop (3/4 of a 2-D transposed convolution with stride 2).
// When r's loop sits inside every other loop the divisibility depends on, the r that pass form
// one residue class, known on entry: the loop can start at it and step by the divisor, and the
// printer leaves the test out of the statements below (Node::lowering.phase).
//
// Only modulo the divisor matters, so a split variable's outer part drops out when its factor
// is a multiple of the divisor: p = 2*p.0 + p.1 leaves p.1 - r + 1, and a schedule that puts
// the phase p.1 outside the taps steps r even with the rows p.0 unrolled inside them.
//
// Every statement below the loop must be an update carrying the same test: skipping the
// iterations is exact only where each of them would have added zero. A copy (a packed panel)
// must write its zeros, so a loop above one is never stepped.
#include <algorithm>
#include <optional>

#include "codegen/lowering.hpp"

namespace attune {

namespace {

void collect_stmts(const std::vector<Node>& nodes, std::vector<const Stmt*>& out) {
  for (const auto& n : nodes) {
    if (n.is_loop())
      collect_stmts(n.body, out);
    else
      out.push_back(&n.stmt);
  }
}

bool has_residue(const Stmt& s, const AffineExpr& residue, std::int64_t divisor) {
  for (const auto& a : s.srcs)
    for (const auto& e : a.index)
      if (e.divisor == divisor && numerator_residue(e) == residue) return true;
  return false;
}

// The phase `loop` can step over, given the variables bound around it.
std::optional<PhaseStep> phase_of(const Node& loop, const std::vector<std::string>& enclosing) {
  if (loop.kind != LoopKind::serial || !loop.bindings.empty()) return std::nullopt;
  std::vector<const Stmt*> stmts;
  collect_stmts(loop.body, stmts);
  if (stmts.empty()) return std::nullopt;
  for (const Stmt* s : stmts)
    if (s->kind != StmtKind::update) return std::nullopt;

  auto outside = [&](const std::string& v) {
    return std::find(enclosing.begin(), enclosing.end(), v) != enclosing.end();
  };
  for (const auto& a : stmts.front()->srcs) {
    for (const auto& e : a.index) {
      if (e.divisor == 1) continue;
      PhaseStep p{numerator_residue(e), e.divisor, {}, 0};
      const std::int64_t d = e.divisor;
      p.coeff = p.residue.coeff(loop.var);
      if (p.coeff != 1 && p.coeff != d - 1) continue;  // the loop must meet every residue class once per d
      p.rest = p.residue;
      p.rest.add_term(loop.var, -p.coeff);
      p.rest.divisor = 1;
      if (!std::all_of(p.rest.terms.begin(), p.rest.terms.end(), [&](const auto& t) { return outside(t.first); }))
        continue;
      if (!std::all_of(stmts.begin(), stmts.end(), [&](const Stmt* s) { return has_residue(*s, p.residue, d); }))
        continue;
      return p;
    }
  }
  return std::nullopt;
}

void step(std::vector<Node>& nodes, std::vector<std::string>& enclosing) {
  for (auto& n : nodes) {
    if (!n.is_loop()) continue;
    n.lowering.phase = phase_of(n, enclosing);
    enclosing.push_back(n.var);
    for (const auto& b : n.bindings) enclosing.push_back(b.var);
    step(n.body, enclosing);
    enclosing.resize(enclosing.size() - 1 - n.bindings.size());
  }
}

}  // namespace

AffineExpr numerator_residue(const AffineExpr& e) {
  const std::int64_t d = e.divisor;
  AffineExpr r;
  r.divisor = d;
  for (const auto& [v, k] : e.terms) r.add_term(v, ((k % d) + d) % d);
  r.constant = ((e.constant % d) + d) % d;
  return r;
}

LoopNest step_phases(LoopNest nest) {
  std::vector<std::string> enclosing;
  step(nest.body, enclosing);
  return nest;
}

}  // namespace attune
