// The per-kind entry points; transform.cpp keeps the one table that dispatches to them.
#pragma once

#include "schedule/transform.hpp"

namespace attune::sched {

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
Applicability pack_check(const LoopNest&, const Transform&);
LoopNest pack_apply(const LoopNest&, const Transform&);
Applicability cache_write_check(const LoopNest&, const Transform&);
LoopNest cache_write_apply(const LoopNest&, const Transform&);

}  // namespace attune::sched
