// The one table of transformation kinds: name, legality check and application. Every kind is
// registered here explicitly; its machinery lives in its own file, its JSON fields in the
// schedule codec (schedule_codec.cpp).
#include "schedule/transform.hpp"

#include <cstdint>
#include <vector>

#include "ir/error.hpp"
#include "schedule/transforms.hpp"

namespace attune {

namespace {

struct KindEntry {
  TransformKind kind;
  std::string_view name;
  Applicability (*check)(const LoopNest&, const Transform&);
  LoopNest (*apply)(const LoopNest&, const Transform&);
};

constexpr KindEntry kKinds[] = {
    {TransformKind::split, "split", sched::split_check, sched::split_apply},
    {TransformKind::reorder, "reorder", sched::reorder_check, sched::reorder_apply},
    {TransformKind::fuse, "fuse", sched::fuse_check, sched::fuse_apply},
    {TransformKind::unroll, "unroll", sched::unroll_check, sched::annotate_apply},
    {TransformKind::vectorize, "vectorize", sched::vectorize_check, sched::annotate_apply},
    {TransformKind::parallel, "parallel", sched::parallel_check, sched::annotate_apply},
    {TransformKind::pack, "pack", sched::pack_check, sched::pack_apply},
    {TransformKind::cache_write, "cache_write", sched::cache_write_check, sched::cache_write_apply},
    {TransformKind::compute_at, "compute_at", sched::compute_at_check, sched::compute_at_apply},
    {TransformKind::compute_inline, "inline", sched::inline_check, sched::inline_apply},
};

const KindEntry& entry(TransformKind k) {
  for (const auto& e : kKinds)
    if (e.kind == k) return e;
  ATTUNE_CHECK(false, "unregistered transformation kind");
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

}  // namespace

std::string_view transform_kind_name(TransformKind k) { return entry(k).name; }

const std::vector<TransformKind>& all_transform_kinds() {
  static const std::vector<TransformKind> kinds = [] {
    std::vector<TransformKind> v;
    for (const auto& e : kKinds) v.push_back(e.kind);
    return v;
  }();
  return kinds;
}

Transform Transform::split(std::string loop, std::vector<std::int64_t> factors) {
  Transform t;
  t.kind = TransformKind::split;
  t.loop = std::move(loop);
  t.factors = std::move(factors);
  return t;
}
Transform Transform::reorder(std::vector<std::string> loops) {
  Transform t;
  t.kind = TransformKind::reorder;
  t.loops = std::move(loops);
  return t;
}
namespace {
Transform on_loop(TransformKind k, std::string loop) {
  Transform t;
  t.kind = k;
  t.loop = std::move(loop);
  return t;
}
}  // namespace
Transform Transform::fuse(std::string loop) { return on_loop(TransformKind::fuse, std::move(loop)); }
Transform Transform::unroll(std::string loop) { return on_loop(TransformKind::unroll, std::move(loop)); }
Transform Transform::vectorize(std::string loop) { return on_loop(TransformKind::vectorize, std::move(loop)); }
Transform Transform::parallel(std::string loop) { return on_loop(TransformKind::parallel, std::move(loop)); }
Transform Transform::pack(std::string tensor, std::string at, std::vector<std::string> layout) {
  Transform t;
  t.kind = TransformKind::pack;
  t.tensor = std::move(tensor);
  t.at = std::move(at);
  t.layout = std::move(layout);
  return t;
}
Transform Transform::pack_padded(std::string tensor) {
  Transform t = pack(std::move(tensor), "root");
  t.padded = true;
  return t;
}
Transform Transform::cache_write(std::string tensor, std::string at) {
  Transform t;
  t.kind = TransformKind::cache_write;
  t.tensor = std::move(tensor);
  t.at = std::move(at);
  return t;
}

Transform Transform::compute_at(std::string tensor, std::string at) {
  Transform t = cache_write(std::move(tensor), std::move(at));
  t.kind = TransformKind::compute_at;
  return t;
}
Transform Transform::compute_inline(std::string tensor) {
  Transform t;
  t.kind = TransformKind::compute_inline;
  t.tensor = std::move(tensor);
  return t;
}

std::string Transform::str() const {
  const std::string n(transform_kind_name(kind));
  switch (kind) {
    case TransformKind::split: {
      std::string f;
      for (std::size_t i = 0; i < factors.size(); ++i) f += (i ? ", " : "") + std::to_string(factors[i]);
      return n + "(" + loop + ", [" + f + "])";
    }
    case TransformKind::reorder: return n + "(" + join(loops) + ")";
    case TransformKind::pack:
      return n + "(" + tensor + ", at " + at + (layout.empty() ? "" : ", layout [" + join(layout) + "]") +
             (padded ? ", padded" : "") + ")";
    case TransformKind::cache_write:
    case TransformKind::compute_at: return n + "(" + tensor + ", at " + at + ")";
    case TransformKind::compute_inline: return n + "(" + tensor + ")";
    default: return n + "(" + loop + ")";
  }
}

namespace {
// The kinds that move or add code, and so may take an unrolled loop they reach past unroll's
// limits on generated code (annotate.cpp); the annotations check their own loop.
bool may_grow_unrolled_code(TransformKind k) {
  return k != TransformKind::unroll && k != TransformKind::vectorize && k != TransformKind::parallel;
}
}  // namespace

namespace {
// The legality check and, when `out` is given, the step applied into it. A step that may grow an
// unrolled loop's code is judged on its result, so the nest it makes is kept for `out` rather
// than made twice.
Applicability check_and_apply(const LoopNest& nest, const Transform& t, LoopNest* out) {
  const KindEntry& e = entry(t.kind);
  Applicability a = e.check(nest, t);
  if (!a) return a;
  if (!may_grow_unrolled_code(t.kind) || !sched::has_unrolled_loop(nest)) {
    if (out) *out = e.apply(nest, t);
    return a;
  }
  LoopNest after = e.apply(nest, t);
  a = sched::unrolled_code_check(after);
  if (a && out) *out = std::move(after);
  return a;
}
}  // namespace

Applicability applicable(const LoopNest& nest, const Transform& t) { return check_and_apply(nest, t, nullptr); }

LoopNest apply(const LoopNest& nest, const Transform& t) {
  LoopNest out;
  if (auto a = check_and_apply(nest, t, &out); !a) throw Error(t.str() + " is not applicable: " + a.reason);
  return out;
}

LoopNest replay(const Op& op, const Trace& t) {
  LoopNest nest = initial_nest(op);
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    LoopNest next;
    if (auto a = check_and_apply(nest, t.steps[i], &next); !a)
      throw Error("trace step " + std::to_string(i) + " " + t.steps[i].str() + " is not applicable: " + a.reason);
    nest = std::move(next);
  }
  return nest;
}

}  // namespace attune
