// schedule/stage_fusion.hpp — what compute_at and inline (schedule/compute_at.cpp,
// schedule/inline.cpp) share: finding an intermediate's producer nests and its readers.
#pragma once

#include <string>
#include <vector>

#include "schedule/loopnest.hpp"
#include "schedule/transform.hpp"

namespace attune::sched {

// `tensor` is an intermediate of a multi-stage op (Op::locals); empty, or why not.
std::string not_an_intermediate(const LoopNest& nest, const std::string& tensor);

// Positions in nest.body of the top-level nests that compute `tensor` (every statement of each
// writes it: its init, compute and mean nests), in order; empty, with `why` set, when it is
// written inside another stage's nest (already moved there).
std::vector<std::size_t> producer_nests(const LoopNest& nest, const std::string& tensor, std::string& why);

bool writes(const Node& n, const std::string& tensor);
bool reads(const Node& n, const std::string& tensor);

}  // namespace attune::sched
