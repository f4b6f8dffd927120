// reorder(loops): permutes a perfectly nested chain of loops.
//
// Preconditions: every named loop exists, once; together they form a chain in which each loop's
// body is exactly the next loop of the chain (in their current order); no local buffer is
// allocated at a chain loop other than the innermost; a vectorized loop stays innermost.
// Reordering changes only the order in which += reductions accumulate, which the reference
// comparison tolerates for floats and which is exact for integers.
#include <algorithm>
#include <set>

#include "ir/error.hpp"
#include "schedule/analysis.hpp"
#include "schedule/transforms.hpp"

namespace attune::sched {

namespace {

// The current chain order of the named loops, outermost first; empty when they do not form one.
std::vector<std::string> current_chain(const LoopNest& nest, const std::vector<std::string>& names, std::string& why) {
  const std::set<std::string> want(names.begin(), names.end());
  // The outermost named loop is the one with the shortest path.
  std::string top;
  std::size_t best = SIZE_MAX;
  for (const auto& n : names) {
    const auto p = nest.path_to(n);
    if (p.size() < best) best = p.size(), top = n;
  }
  std::vector<std::string> chain;
  const Node* cur = nest.find_loop(top);
  while (true) {
    chain.push_back(cur->var);
    if (chain.size() == names.size()) break;
    if (cur->body.size() != 1 || !cur->body[0].is_loop()) {
      why = "loops are not perfectly nested: '" + cur->var + "' holds more than one loop";
      return {};
    }
    cur = &cur->body[0];
    if (!want.count(cur->var)) {
      why = "loops are not adjacent: '" + cur->var + "' lies between them";
      return {};
    }
  }
  return chain;
}

}  // namespace

Applicability reorder_check(const LoopNest& nest, const Transform& t) {
  if (t.loops.size() < 2) return Applicability::no("reorder needs at least two loops");
  std::set<std::string> seen;
  for (const auto& n : t.loops) {
    if (!nest.find_loop(n)) return Applicability::no("no loop named '" + n + "'");
    if (!seen.insert(n).second) return Applicability::no("loop '" + n + "' named twice");
  }
  std::string why;
  const auto chain = current_chain(nest, t.loops, why);
  if (chain.empty()) return Applicability::no(why);
  for (std::size_t i = 0; i + 1 < chain.size(); ++i)
    for (const auto& b : nest.buffers)
      if (b.kind == BufferKind::local && b.alloc_at == chain[i])
        return Applicability::no("buffer '" + b.name + "' is allocated at '" + chain[i] + "'");
  for (std::size_t i = 0; i < t.loops.size(); ++i) {
    const Node* l = nest.find_loop(t.loops[i]);
    if (l->kind == LoopKind::vectorized && i + 1 != t.loops.size())
      return Applicability::no("vectorized loop '" + l->var + "' must stay innermost");
  }
  return Applicability::yes();
}

LoopNest reorder_apply(const LoopNest& in, const Transform& t) {
  LoopNest nest = in;
  std::string why;
  const auto chain = current_chain(nest, t.loops, why);
  Slot slot = find_slot(nest, chain.front());
  // Detach the loop headers and the innermost body.
  std::vector<Node> headers;
  Node* cur = &(*slot.body)[slot.index];
  for (std::size_t i = 0; i < chain.size(); ++i) {
    Node h = *cur;
    h.body.clear();
    headers.push_back(std::move(h));
    if (i + 1 < chain.size()) cur = &cur->body[0];
  }
  std::vector<Node> inner_body = std::move(cur->body);
  std::string inner_alloc = chain.back();

  auto header_of = [&](const std::string& name) {
    for (auto& h : headers)
      if (h.var == name) return h;
    ATTUNE_CHECK(false, "reorder lost loop " + name);
  };
  // Bindings may read any chain variable: they move to the new innermost loop, where every
  // chain variable is defined (statements only live below it).
  std::vector<Binding> bindings;
  for (auto& h : headers) {
    for (auto& b : h.bindings) bindings.push_back(b);
    h.bindings.clear();
  }
  Node built = header_of(t.loops.back());
  built.bindings = std::move(bindings);
  built.body = std::move(inner_body);
  for (std::size_t i = t.loops.size() - 1; i-- > 0;) {
    Node h = header_of(t.loops[i]);
    h.body = {std::move(built)};
    built = std::move(h);
  }
  (*slot.body)[slot.index] = std::move(built);
  // A buffer allocated at the old innermost loop stays at the innermost position.
  for (auto& b : nest.buffers)
    if (b.kind == BufferKind::local && b.alloc_at == inner_alloc) b.alloc_at = t.loops.back();
  return nest;
}

}  // namespace attune::sched
