#include "schedule/analysis.hpp"

#include <limits>

#include <algorithm>
#include <cstdlib>

#include "ir/error.hpp"

namespace attune::sched {

void for_each_stmt(const std::vector<Node>& nodes,
                   const std::function<void(const Stmt&, const std::vector<const Node*>&)>& f,
                   std::vector<const Node*> outer) {
  for (const auto& n : nodes) {
    if (!n.is_loop()) {
      f(n.stmt, outer);
      continue;
    }
    outer.push_back(&n);
    for_each_stmt(n.body, f, outer);
    outer.pop_back();
  }
}

void for_each_stmt_mut(std::vector<Node>& nodes, const std::function<void(Stmt&)>& f) {
  for (auto& n : nodes) {
    if (n.is_loop())
      for_each_stmt_mut(n.body, f);
    else
      f(n.stmt);
  }
}

void for_each_loop_mut(std::vector<Node>& nodes, const std::function<void(Node&)>& f) {
  for (auto& n : nodes) {
    if (!n.is_loop()) continue;
    f(n);
    for_each_loop_mut(n.body, f);
  }
}

void for_each_access(Stmt& s, const std::function<void(Access&)>& f) {
  f(s.dst);
  for (auto& a : s.srcs) f(a);
  if (s.bias) f(*s.bias);
  for_each_read(s.value, f);
}

void for_each_access(const Stmt& s, const std::function<void(const Access&)>& f) {
  f(s.dst);
  for (const auto& a : s.srcs) f(a);
  if (s.bias) f(*s.bias);
  for_each_read(s.value, f);
}

void substitute(std::vector<Node>& nodes, const std::string& v, const AffineExpr& e) {
  for (auto& n : nodes) {
    if (n.is_loop()) {
      for (auto& b : n.bindings) b.base = b.base.substitute(v, e);
      substitute(n.body, v, e);
      continue;
    }
    for_each_access(n.stmt, [&](Access& a) {
      for (auto& ix : a.index) ix = ix.substitute(v, e);
    });
    for (auto& g : n.stmt.guards) g.expr = g.expr.substitute(v, e);
  }
}

namespace {
bool find_slot_in(std::vector<Node>& body, const std::string& var, Slot& out) {
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (!body[i].is_loop()) continue;
    if (body[i].var == var) {
      out = {&body, i};
      return true;
    }
    if (find_slot_in(body[i].body, var, out)) return true;
  }
  return false;
}
}  // namespace

Slot find_slot(LoopNest& nest, const std::string& var) { return find_slot(nest.body, var); }

Slot find_slot(std::vector<Node>& nodes, const std::string& var) {
  Slot s;
  find_slot_in(nodes, var, s);
  return s;
}

std::vector<std::string> iteration_vars(const Node& loop) {
  std::vector<std::string> v{loop.var};
  for (const auto& b : loop.bindings) v.push_back(b.var);
  return v;
}

std::vector<std::string> leaf_vars(const Node& loop) {
  if (loop.bindings.empty()) return {loop.var};
  std::vector<std::string> leaves;
  for (const auto& b : loop.bindings) {
    bool is_base = false;
    for (const auto& o : loop.bindings)
      if (o.base.uses(b.var)) is_base = true;
    if (!is_base) leaves.push_back(b.var);
  }
  return leaves;
}

std::vector<std::string> vars_defined_in(const std::vector<Node>& nodes) {
  std::vector<std::string> out;
  for (const auto& n : nodes) {
    if (!n.is_loop()) continue;
    for (auto& v : iteration_vars(n)) out.push_back(v);
    for (auto& v : vars_defined_in(n.body)) out.push_back(v);
  }
  return out;
}

std::vector<const Node*> all_loops(const std::vector<Node>& nodes) {
  std::vector<const Node*> out;
  for (const auto& n : nodes) {
    if (!n.is_loop()) continue;
    out.push_back(&n);
    for (const Node* inner : all_loops(n.body)) out.push_back(inner);
  }
  return out;
}

std::int64_t extent_of_var(const LoopNest& nest, const std::string& var) {
  for (const auto* l : all_loops(nest.body)) {
    if (l->var == var) return l->extent;
    for (const auto& b : l->bindings)
      if (b.var == var) return b.extent;
  }
  return 0;
}

std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return (a < 0) != (b < 0) ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
}

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return a < 0 ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
}

Range range_of(const LoopNest& nest, const AffineExpr& e) {
  Range r{e.constant, e.constant};
  for (const auto& [v, c] : e.terms) {
    const std::int64_t hi = std::max<std::int64_t>(extent_of_var(nest, v) - 1, 0);
    if (c > 0)
      r.hi = saturating_add(r.hi, saturating_mul(c, hi));
    else
      r.lo = saturating_add(r.lo, saturating_mul(c, hi));
  }
  if (e.divisor != 1) {
    // floor division keeps the bounds ordered; inexact points read zero anyway.
    auto fdiv = [&](std::int64_t a) {
      std::int64_t q = a / e.divisor;
      if ((a % e.divisor != 0) && (a < 0)) --q;
      return q;
    };
    r = {fdiv(r.lo), fdiv(r.hi)};
  }
  return r;
}

bool write_separates_iterations(const LoopNest& nest, const Node& loop, const std::vector<AffineExpr>& index) {
  std::vector<std::string> varying = vars_defined_in(loop.body);
  for (const auto& v : iteration_vars(loop)) varying.push_back(v);
  for (const auto& leaf : leaf_vars(loop)) {
    bool recoverable = false;
    for (const auto& dim : index) {
      const std::int64_t c = dim.coeff(leaf);
      if (c == 0 || dim.divisor != 1) continue;
      // The part of the dimension that varies while the loop runs (variables of this loop and
      // of loops below it; outer ones are fixed) must span less than |c|, so the leaf's value
      // is recoverable from the written index.
      AffineExpr rest;
      for (const auto& [v, k] : dim.terms)
        if (v != leaf && std::find(varying.begin(), varying.end(), v) != varying.end()) rest.add_term(v, k);
      const Range rr = range_of(nest, rest);
      if (rr.hi - rr.lo < std::llabs(c)) recoverable = true;
    }
    if (!recoverable) return false;
  }
  return true;
}

bool is_local(const LoopNest& nest, const std::string& buffer) {
  const auto* b = nest.buffer(buffer);
  return b && b->kind == BufferKind::local;
}

std::string fresh_buffer_name(const LoopNest& nest, const std::string& base) {
  if (!nest.buffer(base)) return base;
  for (int i = 2;; ++i) {
    std::string n = base + std::to_string(i);
    if (!nest.buffer(n)) return n;
  }
}

}  // namespace attune::sched
