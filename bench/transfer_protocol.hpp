// The leave-one-family-out protocol of attune-tuning-efficiency (transfer_protocol.cpp): how
// much the cross-task models (model/transfer_model.hpp) save on an op of a family they never
// saw.
//
//   1. Every training workload is tuned once (evolutionary, loop-nest space) into a database
//      of its own in DIR/pool/ (a finished one is reused).
//   2. Per held-out op, its family's training database is the pool's records of every other
//      family (DIR/train-FAMILY.db), so the models never see the op's family.
//   3. The held-out op is tuned SEEDS times each with ml2 starting from a copy of that
//      database (warm), and with evolutionary and random from nothing (cold), TRIALS each;
//      zero-shot (strategy predict) picks once from another copy.
//   4. Per op, "best" is the fastest kernel any of those runs found. Kernels are judged beside
//      it, re-timed in the same rounds of fresh workers (its record is the luckiest of hundreds
//      of draws, a bar no typical measurement reaches): the zero-shot pick first, then each
//      run's kernels recorded near the bar, to find the first measurement that ran at 95% of
//      the best's speed. A kernel near the bar gets more rounds; a kernel is judged once for
//      all runs; a batch in which the best itself ran at another speed (the machine changed
//      under it) is timed again, and the judging stops with an error if that goes on. Each
//      run's measurements and wall time to that point, and the pick's speed as a fraction of
//      the best's, are printed, then the medians over ops and the closing line
//      target=T time_to_95pct_s=X samples_to_95pct=Y zero_shot_fraction=Z
#pragma once

#include <string>
#include <vector>

namespace attune::bench {

struct LeaveOneFamilyOut {
  std::string target = "cpu";
  std::string workloads;              // the workload file (its second column is the family)
  std::vector<std::string> held_out;  // ops to evaluate
  std::vector<std::string> train;     // ops the models learn from (those of a held-out family are skipped for it)
  int train_trials = 100;
  int trials = 300;
  int seeds = 3;
  int threads = 0;
  std::string dir = "tuning-efficiency";
};

int run_leave_one_family_out(const LeaveOneFamilyOut& a);

}  // namespace attune::bench
