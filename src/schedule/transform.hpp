// schedule/transform.hpp — atomic, pure, recorded loop-nest transformations and their traces.
//
// Each kind lives in its own file under src/schedule/ whose opening note lists its
// preconditions. `applicable()` is the legality check (also the RL agent's action mask): it
// returns ok or a short reason. `apply()` returns a new nest and never mutates its input; it
// throws attune::Error with the reason when the step is not applicable.
//
// Kinds and their fields (JSON uses the same names; the codec is schedule.hpp's):
//   split       loop, factors[f0, f1, ...]   loop -> loop.0 (outer) ... loop.N-1 (inner);
//                                            a product above the extent leaves a tail handled by
//                                            a guard (`v < extent`) on every statement below
//   reorder     loops[...]                   a perfectly nested chain, given in its new order
//   fuse        loop                         collapses `loop` with its only child into one loop
//                                            named "outer_inner"; the old variables become bindings
//   unroll      loop                         fully unrolled by the code generator (extent <= 64;
//                                            the code gcc sees stays bounded, after later steps
//                                            too: schedule/annotate.cpp)
//   vectorize   loop                         innermost loop, no carried dependence
//   parallel    loop                         no carried dependence, not inside another parallel loop
//   pack        tensor, at, layout[...]      copies the tile of `tensor` read below loop `at`
//                                            ("root" = the whole function) into a local buffer whose
//                                            dimensions are the loops in `layout` (empty = the loops
//                                            the read uses, outermost first); reads are redirected
//                                            padded (optional, "root" only): keep the tensor's own
//                                            dimensions, each widened to the range its index spans,
//                                            so a convolution's halo becomes zeros without im2col
//   cache_write tensor, at                   accumulates the output tile below `at` in a local
//                                            buffer, written back at the end of `at`'s body
//   compute_at  tensor, at                   (multi-stage ops) computes intermediate `tensor`
//                                            inside loop `at` of a later stage, each iteration
//                                            the part it reads (schedule/compute_at.cpp)
//   inline      tensor                       (multi-stage ops) replaces every read of an
//                                            elementwise intermediate by its expression
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "schedule/loopnest.hpp"

namespace attune {

enum class TransformKind {
  split,
  reorder,
  fuse,
  unroll,
  vectorize,
  parallel,
  pack,
  cache_write,
  compute_at,
  compute_inline
};

struct Transform {
  TransformKind kind = TransformKind::split;
  std::string loop;                   // split, fuse, unroll, vectorize, parallel
  std::vector<std::int64_t> factors;  // split
  std::vector<std::string> loops;     // reorder
  std::string tensor;                 // pack, cache_write
  std::string at;                     // pack, cache_write
  std::vector<std::string> layout;    // pack
  bool padded = false;                // pack: the tensor's own layout plus a zero halo

  static Transform split(std::string loop, std::vector<std::int64_t> factors);
  static Transform reorder(std::vector<std::string> loops);
  static Transform fuse(std::string loop);
  static Transform unroll(std::string loop);
  static Transform vectorize(std::string loop);
  static Transform parallel(std::string loop);
  static Transform pack(std::string tensor, std::string at, std::vector<std::string> layout = {});
  static Transform pack_padded(std::string tensor);  // pack at "root" in the tensor's layout
  static Transform cache_write(std::string tensor, std::string at);
  static Transform compute_at(std::string tensor, std::string at);
  static Transform compute_inline(std::string tensor);

  std::string str() const;  // "split(k, [8, 16])"
  bool operator==(const Transform&) const = default;
};

// The local buffer cache_write makes for `tensor` (unless the nest already has that name), and
// the loops of its zeroing and write-back copies, "<loop>@<buffer>.init" / ".back": traces name
// them, so the transform and the spaces that write traces take the names from here.
inline std::string cache_write_buffer(const std::string& tensor) { return tensor + "_l"; }
enum class CacheWriteCopy { init, back };
inline std::string cache_write_copy_loop(const std::string& loop, const std::string& buffer, CacheWriteCopy copy) {
  return loop + "@" + buffer + (copy == CacheWriteCopy::init ? ".init" : ".back");
}

std::string_view transform_kind_name(TransformKind k);
const std::vector<TransformKind>& all_transform_kinds();

// The answer of a legality check: ok, or the reason it is refused.
struct Applicability {
  bool ok = true;
  std::string reason;
  static Applicability yes() { return {}; }
  static Applicability no(std::string why) { return {false, std::move(why)}; }
  explicit operator bool() const { return ok; }
};

Applicability applicable(const LoopNest& nest, const Transform& t);
LoopNest apply(const LoopNest& nest, const Transform& t);  // throws Error when not applicable

// The list of transformations that produced a loop nest: the loop-nest part of a Schedule
// (schedule.hpp, which also reads and writes it), the RL agent's unit of search.
struct Trace {
  std::vector<Transform> steps;
  bool operator==(const Trace&) const = default;
};

// Replays every step on initial_nest(op). Throws Error naming the step that does not apply.
LoopNest replay(const Op& op, const Trace& t);

}  // namespace attune
