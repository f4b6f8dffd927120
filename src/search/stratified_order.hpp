// search/stratified_order.hpp — a ranking taken a group at a time, so the first picks cover every group.
#pragma once

#include <cstddef>
#include <vector>

namespace attune {

// `ranked` (indices, best first) reordered so that each group's best comes before any group's
// second: the groups in the order of their best member, then round after round each group's
// next best. `group[i]` is index i's group. Within a group the ranking's order is kept.
//
// Why: which structure runs best (on a CPU, which dimension is vectorised) is what differs
// most between op families, and a model trained on other families can only guess it; the
// first picks hedge across structures. On a held-out convolution (rn50_c2_3x3) the transfer A
// put its four picks on vectors along the output's columns (0.71-0.78 of the best as
// recorded) and none on those along the output channels (0.79-0.85).
std::vector<std::size_t> stratified_order(const std::vector<std::size_t>& ranked, const std::vector<int>& group);

}  // namespace attune
