// Interval analysis of index expressions at one point of a nest, shared by the split_tails pass
// and the printer: a variable is a constant (an unrolled copy, a vector chunk), one part of a
// split loop, or anywhere in its extent.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "schedule/analysis.hpp"
#include "schedule/loopnest.hpp"

namespace attune::cgen {

std::int64_t floor_div(std::int64_t a, std::int64_t d);

struct RangeEnv {
  std::map<std::string, std::int64_t> consts;   // variables at one value
  std::map<std::string, sched::Range> parts;    // loops over one part of a split
  std::map<std::string, std::int64_t> extents;  // every loop and bound variable's extent

  explicit RangeEnv(const LoopNest& nest);
  // [lo, hi] of `e` here.
  sched::Range of(const AffineExpr& e) const;
};

}  // namespace attune::cgen
