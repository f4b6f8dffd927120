// schedule/actions.hpp — the discrete set of transformations offered at a loop nest.
//
// One list serves random trace generation (`attune verify`), the RL agent's action space and
// mutation in search: every (kind, loop or tensor, parameter from a small set) that is
// applicable at the nest, in a deterministic order. Illegal actions are never listed.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "schedule/transform.hpp"

namespace attune {

struct ActionSpace {
  std::vector<std::int64_t> split_factors = {2, 4, 8, 16, 32};
  bool allow_pack = true;
  bool allow_cache_write = true;
};

// Every applicable action at `nest`.
std::vector<Transform> legal_actions(const LoopNest& nest, const ActionSpace& space = {});

// A random legal trace of up to `max_steps` steps: at each step a kind is drawn uniformly among
// the kinds that have an applicable action, then one of its actions.
Trace random_trace(const Op& op, std::mt19937_64& rng, int max_steps = 8, const ActionSpace& space = {});

}  // namespace attune
