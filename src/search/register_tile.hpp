// search/register_tile.hpp — the steps that keep a contraction's output tile in registers, shared
// by the contraction space (cpu_space_trace.cpp) and the stage space's contraction stages
// (stage_space.cpp).
#pragma once

#include <string>
#include <vector>

#include "schedule/transform.hpp"

namespace attune {

// cache_write of `out` at loop `at` (none when `at` is ""), the tile's `rows` loop unrolled
// (none when "") and its `lanes` loop vectorised, and the same for the local buffer's zeroing
// and write-back copies, whose loops cache_write names "<loop>@<out>_l.init" and ".back".
std::vector<Transform> register_tile_steps(const std::string& out, const std::string& at, const std::string& rows,
                                           const std::string& lanes);

}  // namespace attune
