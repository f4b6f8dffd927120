// inline(tensor): an elementwise intermediate of a multi-stage op is not stored at all: every
// read of it becomes the expression that computes it (Halide's compute_inline), at the cost of
// recomputing it once per read.
//
// Preconditions, each refused with its reason: the tensor is an intermediate written by one
// untransformed `=` statement (in its own nest, through distinct plain loop variables, one per
// dimension); that statement's reads stay inside their tensors (where a read would be zero, the
// inlined expression would no longer be: a max= reader skips such points instead); every read
// of the tensor is by a compute statement, with an index that stays inside it.
#include <algorithm>

#include "ir/error.hpp"
#include "schedule/analysis.hpp"
#include "schedule/stage_fusion.hpp"
#include "schedule/transforms.hpp"

namespace attune::sched {

namespace {

struct Plan {
  std::string why;
  std::size_t producer = 0;
  const Stmt* stmt = nullptr;
  std::vector<std::string> vars;  // the loop variable of each dimension
};

Plan refused(std::string why) {
  Plan p;
  p.why = std::move(why);
  return p;
}

bool in_bounds(const LoopNest& nest, const Access& a) {
  const Tensor* t = nest.op.find_tensor(a.tensor);
  if (!t) return false;
  for (std::size_t d = 0; d < a.index.size(); ++d) {
    if (a.index[d].divisor != 1) return false;
    const Range r = range_of(nest, a.index[d]);
    if (r.lo < 0 || r.hi >= t->shape[d]) return false;
  }
  return true;
}

Plan plan_of(const LoopNest& nest, const Transform& t) {
  Plan p;
  if (auto why = not_an_intermediate(nest, t.tensor); !why.empty()) return refused("inline: " + why);
  const auto producers = producer_nests(nest, t.tensor, p.why);
  if (!p.why.empty()) return p;
  if (producers.size() != 1)
    return refused("'" + t.tensor + "' is a reduction (init and update nests): it cannot be inlined");
  p.producer = producers[0];
  // Walked in place (not through a copy): the plan keeps pointers to the statement and loops.
  const Node& root = nest.body[p.producer];
  std::vector<const Node*> loops;
  for_each_stmt(root.body,
                [&](const Stmt& s, const std::vector<const Node*>& ls) {
                  p.stmt = &s;
                  loops = ls;
                },
                {&root});
  const Stmt& s = *p.stmt;
  if (s.kind != StmtKind::compute || s.reduce != Reduce::none || !s.guards.empty())
    return refused("'" + t.tensor + "' is not computed by one untransformed '=' statement");
  for (const auto& e : s.dst.index) {
    auto v = e.as_single_var();
    const bool plain =
        v && std::find(p.vars.begin(), p.vars.end(), *v) == p.vars.end() &&
        std::any_of(loops.begin(), loops.end(), [&](const Node* l) { return l->var == *v && l->bindings.empty(); });
    if (!plain)
      return refused("'" + t.tensor + "' is not written through one plain loop per dimension (split or fused)");
    p.vars.push_back(*v);
  }
  if (loops.size() != p.vars.size())
    return refused("the nest computing '" + t.tensor + "' has loops besides its dimensions");
  bool inside = true;
  for_each_read(s.value, [&](const Access& a) { inside = inside && in_bounds(nest, a); });
  if (!inside)
    return refused("the expression of '" + t.tensor + "' reads outside a tensor (padding): inlining would change it");
  std::string bad;
  for (std::size_t i = 0; i < nest.body.size() && bad.empty(); ++i) {
    if (i == p.producer) continue;
    for_each_stmt({nest.body[i]}, [&](const Stmt& r, const std::vector<const Node*>&) {
      for_each_access(r, [&](const Access& a) {
        if (&a == &r.dst || a.tensor != t.tensor || !bad.empty()) return;
        if (r.kind != StmtKind::compute)
          bad = "'" + t.tensor + "' is read by a " + std::string(stmt_kind_name(r.kind)) + " statement";
        else if (!in_bounds(nest, a))
          bad = "the read " + a.str() + " may leave the tensor (where it reads zero)";
      });
    });
  }
  if (!bad.empty()) return refused(bad);
  return p;
}

// `e` with every read of `tensor` replaced by `value` over the read's indices.
void replace_reads(Expr& e, const std::string& tensor, const Expr& value, const std::vector<std::string>& vars) {
  if (e.kind == Expr::Kind::load && e.load.tensor == tensor) {
    Expr v = value;
    // Through fresh names first, so that one dimension's index cannot capture another's variable.
    for (std::size_t d = 0; d < vars.size(); ++d)
      for_each_read(v, [&](Access& a) {
        for (auto& ix : a.index) ix = ix.substitute(vars[d], AffineExpr::var("@inline" + std::to_string(d)));
      });
    for (std::size_t d = 0; d < vars.size(); ++d)
      for_each_read(v, [&](Access& a) {
        for (auto& ix : a.index) ix = ix.substitute("@inline" + std::to_string(d), e.load.index[d]);
      });
    e = std::move(v);
    return;
  }
  for (auto& a : e.args) replace_reads(a, tensor, value, vars);
}

}  // namespace

Applicability inline_check(const LoopNest& nest, const Transform& t) {
  const Plan p = plan_of(nest, t);
  return p.why.empty() ? Applicability::yes() : Applicability::no(p.why);
}

LoopNest inline_apply(const LoopNest& in, const Transform& t) {
  const Plan p = plan_of(in, t);
  ATTUNE_CHECK(p.why.empty(), "inline_apply: " + p.why);
  LoopNest nest = in;
  const Expr value = p.stmt->value;
  nest.body.erase(nest.body.begin() + static_cast<std::ptrdiff_t>(p.producer));
  nest.buffers.erase(
      std::remove_if(nest.buffers.begin(), nest.buffers.end(), [&](const BufferDecl& b) { return b.name == t.tensor; }),
      nest.buffers.end());
  for_each_stmt_mut(nest.body, [&](Stmt& s) { replace_reads(s.value, t.tensor, value, p.vars); });
  return nest;
}

}  // namespace attune::sched
