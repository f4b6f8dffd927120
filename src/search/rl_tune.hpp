// tune() for strategy "rl" (rl_tune.cpp): a trace-based path beside the knob-based loop; tune()
// hands over to it when options.strategy is "rl".
#pragma once

#include "attune/tuner.hpp"

namespace attune {

TuneResult tune_rl(const Op& op, const TuneOptions& options);

}  // namespace attune
