// pack(tensor, at, layout): copies the tile of an input tensor that the statements below loop
// `at` read into a contiguous local buffer, in a chosen layout, and redirects those reads.
//
// The packed buffer has one dimension per loop below `at` that the read uses, in the order given
// by `layout` (default: outermost first); its elements are filled by a copy nest (loops named
// "<loop>@<buffer>") at the top of `at`'s body, once per iteration of `at`. Out-of-bounds reads
// copy zeros, so padding checks leave the compute loop. A read that repeats an element for
// several loop values (a convolution window) duplicates it: that is im2col, by choice.
//
// padded: instead of one dimension per loop, the buffer keeps the tensor's own dimensions, each
// widened to the range its index expression spans over the whole nest (so only at "root"). A
// convolution's input then gets its halo as zeros, once, without the duplication of im2col, and
// the compute loop reads it with no bounds checks. Needs every index dimension undivided.
//
// Preconditions: `tensor` is an input of the Op read by some update below `at` ("root": the
// whole function), always through one and the same access; the access uses no variable bound by
// a fused loop below `at`; `at` is not vectorized or unrolled; `layout` is a permutation of the
// used loops; the buffer holds at most 16M elements.
#include <algorithm>
#include <set>

#include "ir/error.hpp"
#include "schedule/analysis.hpp"
#include "schedule/transforms.hpp"

namespace attune::sched {

namespace {

constexpr std::int64_t kMaxPackElements = 16 << 20;
const std::string kTooLarge = "packed buffer would hold more than " + std::to_string(kMaxPackElements) + " elements";

const std::vector<Node>& scope_body(const LoopNest& nest, const std::string& at) {
  return at == "root" ? nest.body : nest.find_loop(at)->body;
}

struct PackPlan {
  Access access;                    // the one read of the tensor below `at`
  std::vector<std::string> layout;  // loops of the packed dimensions
  std::vector<Range> ranges;        // padded: the span of each tensor dimension's index
  std::string why;
};

// Why `t` names no input tensor, or a place that cannot hold a pack; "" when it can.
std::string refuse_target(const LoopNest& nest, const Transform& t) {
  if (!nest.op.tensors.empty() && nest.op.tensor_index(t.tensor) < 0)
    return nest.op.find_tensor(t.tensor) ? "'" + t.tensor + "' is an intermediate; pack copies inputs"
                                         : "no tensor named '" + t.tensor + "'";
  if (t.tensor == nest.op.output.tensor) return "'" + t.tensor + "' is the output; use cache_write";
  if (t.at != "root") {
    const Node* l = nest.find_loop(t.at);
    if (!l) return "no loop named '" + t.at + "'";
    if (l->kind == LoopKind::vectorized || l->kind == LoopKind::unrolled)
      return "cannot pack inside " + std::string(loop_kind_name(l->kind)) + " loop '" + t.at + "'";
  }
  return "";
}

// Finds the one read of the tensor below `at` (p.access) and the loops it uses, outermost
// first (`order`); false when there is none. Sets p.why where the reads cannot be packed:
// different accesses, or a variable bound by a fused loop.
bool find_read(const LoopNest& nest, const Transform& t, PackPlan& p, std::vector<std::string>& order) {
  bool found = false;
  for_each_stmt(scope_body(nest, t.at), [&](const Stmt& s, const std::vector<const Node*>& loops) {
    if (!p.why.empty() || s.kind != StmtKind::update) return;
    for (const auto& a : s.srcs) {
      if (a.tensor != t.tensor) continue;
      if (found && !(a == p.access)) {
        p.why = "'" + t.tensor + "' is read through different accesses below '" + t.at + "'";
        return;
      }
      found = true;
      p.access = a;
      order.clear();
      for (const Node* l : loops) {
        for (const auto& b : l->bindings) {
          for (const auto& ix : a.index)
            if (ix.uses(b.var))
              p.why = "the read of '" + t.tensor + "' uses '" + b.var + "', bound by fused loop '" + l->var + "'";
        }
        bool used = false;
        for (const auto& ix : a.index) used = used || ix.uses(l->var);
        if (used) order.push_back(l->var);
      }
    }
  });
  return found;
}

// A padded pack: the span of each index of the read, over the whole function.
void plan_padded(const LoopNest& nest, const Transform& t, PackPlan& p) {
  if (t.at != "root") {
    p.why = "a padded pack covers the whole function: at must be 'root'";
    return;
  }
  if (!t.layout.empty()) {
    p.why = "a padded pack keeps the tensor's layout: give no layout";
    return;
  }
  std::int64_t n = 1;
  for (const auto& e : p.access.index) {
    if (e.divisor != 1) {
      p.why = "a padded pack needs undivided indices; '" + t.tensor + "' is read at a strided point";
      return;
    }
    p.ranges.push_back(range_of(nest, e));
    const Range& r = p.ranges.back();
    n = saturating_mul(n, saturating_add(saturating_add(r.hi, saturating_mul(r.lo, -1)), 1));
  }
  if (n > kMaxPackElements) p.why = kTooLarge;
}

// A pack by loops: the layout given, which must order the loops the read uses (`order`), or
// those loops outermost first.
void plan_layout(const LoopNest& nest, const Transform& t, const std::vector<std::string>& order, PackPlan& p) {
  if (t.layout.empty()) {
    p.layout = order;
  } else {
    std::vector<std::string> a = t.layout, b = order;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b) {
      std::string want;
      for (const auto& v : order) want += (want.empty() ? "" : " ") + v;
      p.why = "layout must be a permutation of the loops the read uses: " + want;
      return;
    }
    p.layout = t.layout;
  }
  std::int64_t n = 1;
  for (const auto& v : p.layout) n = saturating_mul(n, nest.find_loop(v)->extent);
  if (n > kMaxPackElements) p.why = kTooLarge;
}

PackPlan plan(const LoopNest& nest, const Transform& t) {
  PackPlan p;
  p.why = refuse_target(nest, t);
  if (!p.why.empty()) return p;
  std::vector<std::string> order;  // loops the read uses, outermost first
  const bool found = find_read(nest, t, p, order);
  if (!p.why.empty()) return p;
  if (!found) {
    p.why = "'" + t.tensor + "' is not read below '" + t.at + "'";
    return p;
  }
  if (t.padded)
    plan_padded(nest, t, p);
  else
    plan_layout(nest, t, order, p);
  return p;
}

}  // namespace

Applicability pack_check(const LoopNest& nest, const Transform& t) {
  const auto p = plan(nest, t);
  return p.why.empty() ? Applicability::yes() : Applicability::no(p.why);
}

namespace {

// What a pack adds: the buffer, the redirected read, and the copy nest that fills it.
struct PackedCopy {
  BufferDecl decl;
  Access packed;
  Node copy_nest;
};

// buf[d0, d1, ...] = tensor[d0 + lo0, d1 + lo1, ...] over the padded ranges.
PackedCopy padded_copy(const Transform& t, const PackPlan& p, BufferDecl decl) {
  Access packed{decl.name, {}}, src{t.tensor, {}}, dst{decl.name, {}};
  std::vector<std::string> copy_vars;
  for (std::size_t d = 0; d < p.ranges.size(); ++d) {
    decl.shape.push_back(p.ranges[d].hi - p.ranges[d].lo + 1);
    packed.index.push_back(p.access.index[d] + AffineExpr::constant_of(-p.ranges[d].lo));
    copy_vars.push_back("d" + std::to_string(d) + "@" + decl.name);
    dst.index.push_back(AffineExpr::var(copy_vars.back()));
    src.index.push_back(AffineExpr::var(copy_vars.back()) + AffineExpr::constant_of(p.ranges[d].lo));
  }
  Stmt copy;
  copy.kind = StmtKind::copy;
  copy.dst = dst;
  copy.srcs = {src};
  Node copy_nest = Node::make_stmt(copy);
  for (std::size_t d = p.ranges.size(); d-- > 0;)
    copy_nest = Node::make_loop(copy_vars[d], decl.shape[d], {std::move(copy_nest)});
  return {std::move(decl), std::move(packed), std::move(copy_nest)};
}

// packed[v@buf...] = tensor[access with v -> v@buf], one dimension per loop of the layout.
PackedCopy layout_copy(const LoopNest& nest, const PackPlan& p, BufferDecl decl) {
  const std::string& buf = decl.name;
  Access packed{buf, {}};
  for (const auto& v : p.layout) {
    decl.shape.push_back(nest.find_loop(v)->extent);
    packed.index.push_back(AffineExpr::var(v));
  }
  Stmt copy;
  copy.kind = StmtKind::copy;
  copy.dst = packed;
  copy.srcs = {p.access};
  std::vector<Node> copy_body{Node::make_stmt(copy)};
  for (const auto& v : p.layout) substitute(copy_body, v, AffineExpr::var(v + "@" + buf));
  Node copy_nest = copy_body[0];
  for (auto it = p.layout.rbegin(); it != p.layout.rend(); ++it)
    copy_nest = Node::make_loop(*it + "@" + buf, nest.find_loop(*it)->extent, {std::move(copy_nest)});
  return {std::move(decl), std::move(packed), std::move(copy_nest)};
}

}  // namespace

LoopNest pack_apply(const LoopNest& in, const Transform& t) {
  const auto p = plan(in, t);
  LoopNest nest = in;
  BufferDecl decl;
  decl.name = fresh_buffer_name(nest, t.tensor + "_p");
  decl.dtype = nest.op.tensor(t.tensor).dtype;
  decl.kind = BufferKind::local;
  decl.alloc_at = t.at == "root" ? "" : t.at;
  PackedCopy c = t.padded ? padded_copy(t, p, std::move(decl)) : layout_copy(nest, p, std::move(decl));

  std::vector<Node>& body = t.at == "root" ? nest.body : nest.find_loop(t.at)->body;
  for_each_stmt_mut(body, [&](Stmt& s) {
    if (s.kind != StmtKind::update) return;
    for (auto& a : s.srcs)
      if (a == p.access) a = c.packed;
  });
  body.insert(body.begin(), std::move(c.copy_nest));
  nest.buffers.push_back(std::move(c.decl));
  return nest;
}

}  // namespace attune::sched
