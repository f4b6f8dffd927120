// Held-out quality of ML²Tuner's models on the records of finished runs.
#pragma once

#include <string>
#include <vector>

#include "efficiency_runs.hpp"

namespace attune::bench {

struct ModelQuality {
  int train_rows = 0, test_rows = 0, test_valid = 0;
  double p_pairwise = 0, a_pairwise = 0;  // pairwise ranking accuracy on valid test rows
  double p_peak1 = 0, a_peak1 = 0, p_peak5 = 0, a_peak5 = 0;
  double v_precision = 0, v_recall = 0, v_accuracy = 0;  // of the "invalid" class
  bool ok = false;                                       // enough data to say anything
};

// Pools the attempts of `runs` (one workload, any strategy and seed), one row per distinct
// config, holds out a deterministic 30% of the configs, trains V, P and A on the rest exactly
// as strategy ml2 does, and scores them on the held-out rows.
ModelQuality held_out_quality(const std::vector<const Run*>& runs, const std::string& hidden_kind);

}  // namespace attune::bench
