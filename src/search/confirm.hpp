// Re-measuring a tuning run's fastest traces before one is called the best (tune.cpp).
#pragma once

#include <chrono>
#include <cstdint>

#include "attune/codegen_cpu.hpp"
#include "attune/db.hpp"
#include "attune/runtime.hpp"
#include "attune/tuner.hpp"

namespace attune {

struct ConfirmContext {
  const Op& op;
  const Space& space;
  Database& db;
  std::int64_t task_id;
  const Builder& builder;
  Runner& runner;
  const MeasureOptions& measure;   // as the search measured (threads, seed, repeats)
  const CpuCodegenOptions& codegen;
  const TuneOptions& options;      // confirm_top, confirm_runs, time_s
  std::chrono::steady_clock::time_point start;
};

// Re-measures each of the task's `confirm_top` fastest ok traces until it has `confirm_runs`
// confirmations (fresh worker processes; records with strategy kConfirmStrategy, trial
// numbers from `next_trial` on). Stops at the time limit. Returns the records it added.
int confirm_top_traces(const ConfirmContext& c, std::int64_t& next_trial);

}  // namespace attune
