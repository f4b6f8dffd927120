// The progress the tuning loop (engine.cpp) reports after each attempt (TuneProgress, tuner.hpp).
#pragma once

#include <algorithm>
#include <optional>

#include "db/db.hpp"
#include "search/tuner.hpp"

namespace attune {

// `budget`: the trial target (INT_MAX without one); `run`: attempts made by this run. The ETA
// is the sooner of the time limit and the pace so far times the trials left.
inline TuneProgress tune_progress(const Op& op, const TuneOptions& o, const TaskCounts& counts,
                                  const std::optional<double>& best_s, double elapsed_s, int run, int budget) {
  TuneProgress p;
  p.trials = static_cast<int>(counts.trials);
  p.budget = o.trials > 0 ? o.trials : 0;
  p.valid = static_cast<int>(counts.valid);
  p.best_time_s = best_s.value_or(0);
  p.best_gflops = best_s ? gflops_of(op, *best_s) : 0;
  p.elapsed_s = elapsed_s;
  if (o.time_s > 0) p.eta_s = std::max(0.0, o.time_s - elapsed_s);
  if (o.trials > 0 && run > 0) {
    const double eta = elapsed_s / run * std::max(0, budget - p.trials);
    p.eta_s = p.eta_s < 0 ? eta : std::min(p.eta_s, eta);
  }
  return p;
}

}  // namespace attune
