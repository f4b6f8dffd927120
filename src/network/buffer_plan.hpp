// network/buffer_plan.hpp — where every value of a planned network lives while it runs: in the
// arena (what steps write, placed by lifetime: memory_plan.hpp), among the weights (constants,
// in their layout's memory order, at fixed offsets of one blob), or in the caller's input
// buffers. Views resolve to their source (ModelPlan::storage). The runner and the generated
// model library (libgen --model) both follow it.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "graph/plan.hpp"
#include "ir/aligned.hpp"
#include "network/memory_plan.hpp"

namespace attune::network {

struct BufferPlan {
  enum class Where { arena, weights, input };
  struct Place {
    Where where = Where::arena;
    std::int64_t offset = 0;  // floats into the arena or the weights blob; input: graph input index
  };
  std::map<int, Place> places;  // per storage root
  ArenaPlan arena;              // bytes
  AlignedFloats weights;        // every constant a step or output reads, pre-packed; each at a kBufferAlign offset
  Place at(const graph::ModelPlan& plan, int value) const { return places.at(plan.storage[value]); }
};

BufferPlan plan_buffers(const graph::ModelPlan& plan);

}  // namespace attune::network
