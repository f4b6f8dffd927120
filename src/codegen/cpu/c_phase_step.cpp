// Stepped loops for strided reads: the taps of a transposed convolution.
//
// A read like I[(p - r + 1)/2] holds a value only where 2 divides p - r + 1; everywhere else the
// product is zero and the update is skipped. Iterating r over every value and testing each one
// wastes (stride - 1)/stride of the loop (3/4 of a 2-D transposed convolution with stride 2).
// When r's loop sits inside every other loop the divisibility depends on, the r that pass form
// one residue class, known on entry: the loop can start at it and step by the divisor, and the
// test disappears from the statements below.
//
// Only modulo the divisor matters, so a split variable's outer part drops out when its factor
// is a multiple of the divisor: p = 2*p.0 + p.1 leaves p.1 - r + 1, and a schedule that puts
// the phase p.1 outside the taps steps r even with the rows p.0 unrolled inside them.
//
// Every statement below the loop must be an update carrying the same test: skipping the
// iterations is exact only where each of them would have added zero. A copy (a packed panel)
// must write its zeros, so a loop above one is never stepped.
#include <algorithm>

#include "codegen/cpu/c_emitter.hpp"

namespace attune::cgen {

namespace {

void collect_stmts(const std::vector<Node>& nodes, std::vector<const Stmt*>& out) {
  for (const auto& n : nodes) {
    if (n.is_loop())
      collect_stmts(n.body, out);
    else
      out.push_back(&n.stmt);
  }
}

bool has_residue(const Stmt& s, const PhaseTest& t) {
  for (const auto& a : s.srcs)
    for (const auto& e : a.index)
      if (e.divisor == t.divisor && numerator_residue(e) == t.residue) return true;
  return false;
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

std::optional<PhaseStep> CEmitter::phase_step(const Node& loop) const {
  if (loop.kind != LoopKind::serial || !loop.bindings.empty()) return std::nullopt;
  std::vector<const Stmt*> stmts;
  collect_stmts(loop.body, stmts);
  if (stmts.empty()) return std::nullopt;
  for (const Stmt* s : stmts)
    if (s->kind != StmtKind::update) return std::nullopt;

  auto bound_outside = [&](const std::string& v) {
    return consts.count(v) > 0 || std::find(enclosing_.begin(), enclosing_.end(), v) != enclosing_.end();
  };
  for (const auto& a : stmts.front()->srcs) {
    for (const auto& e : a.index) {
      if (e.divisor == 1) continue;
      PhaseTest t{numerator_residue(e), e.divisor};
      const std::int64_t d = e.divisor, c = t.residue.coeff(loop.var);
      if (c != 1 && c != d - 1) continue;  // the loop must meet every residue class once per d
      AffineExpr rest = t.residue;
      rest.add_term(loop.var, -c);
      rest.divisor = 1;
      bool outside = true;
      for (const auto& [v, k] : rest.terms) outside = outside && bound_outside(v);
      if (!outside) continue;
      if (!std::all_of(stmts.begin(), stmts.end(), [&](const Stmt* s) { return has_residue(*s, t); })) continue;
      // rest's terms and constant are non-negative, so C's % is the mathematical one here.
      // c == 1: v + rest = 0 (mod d); c == d - 1: v = rest (mod d).
      const std::string r = "(" + expr(rest) + " % " + std::to_string(d) + ")";
      const std::string start = c == 1 && d != 2 ? "((" + std::to_string(d) + " - " + r + ") % " + std::to_string(d) + ")" : r;
      return PhaseStep{t, start};
    }
  }
  return std::nullopt;
}

bool CEmitter::proven_divisible(const AffineExpr& e) const {
  const AffineExpr r = numerator_residue(e);
  return std::any_of(proven_.begin(), proven_.end(),
                     [&](const PhaseTest& t) { return t.divisor == e.divisor && t.residue == r; });
}

}  // namespace attune::cgen
