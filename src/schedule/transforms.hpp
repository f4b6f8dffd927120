// The per-kind entry points; transform.cpp keeps the one table that dispatches to them.
#pragma once

#include <cstdint>

#include "schedule/transform.hpp"

namespace attune::sched {

// The most iterations a loop made by split or fuse may have: far above any real loop, and
// small enough that no product of extents, strides and split factors the transformations form
// can overflow. A trace from a file or a database may hold any integers (factors near 2^62 and
// fused extents of 2^80 overflowed: fuzz/corpus/trace_replay/regression-*).
inline constexpr std::int64_t kMaxLoopExtent = std::int64_t{1} << 40;

Applicability split_check(const LoopNest&, const Transform&);
LoopNest split_apply(const LoopNest&, const Transform&);
Applicability reorder_check(const LoopNest&, const Transform&);
LoopNest reorder_apply(const LoopNest&, const Transform&);
Applicability fuse_check(const LoopNest&, const Transform&);
LoopNest fuse_apply(const LoopNest&, const Transform&);
Applicability unroll_check(const LoopNest&, const Transform&);
Applicability vectorize_check(const LoopNest&, const Transform&);
Applicability parallel_check(const LoopNest&, const Transform&);
LoopNest annotate_apply(const LoopNest&, const Transform&);  // unroll, vectorize, parallel
// Whether every unrolled loop of a nest still keeps unroll's limits on the code it makes (a step
// that adds code inside an unrolled loop may take it past them); has_unrolled_loop() says
// whether there is anything to check.
bool has_unrolled_loop(const LoopNest&);
Applicability unrolled_code_check(const LoopNest& after);
Applicability pack_check(const LoopNest&, const Transform&);
LoopNest pack_apply(const LoopNest&, const Transform&);
Applicability cache_write_check(const LoopNest&, const Transform&);
LoopNest cache_write_apply(const LoopNest&, const Transform&);
Applicability compute_at_check(const LoopNest&, const Transform&);
LoopNest compute_at_apply(const LoopNest&, const Transform&);
Applicability inline_check(const LoopNest&, const Transform&);
LoopNest inline_apply(const LoopNest&, const Transform&);

}  // namespace attune::sched
