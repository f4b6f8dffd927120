// What one tuning run left in its database, as the tuning-efficiency report needs it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/db.hpp"

namespace attune::bench {

struct Attempt {
  Status status = Status::ok;
  double time_s = 0;     // 0 unless ok
  bool measured = true;  // false: a failure found while compiling (ml2), never run
  std::vector<float> visible;
  nlohmann::json hidden;
};

struct Run {
  std::string workload, strategy;
  int seed = 0;
  std::vector<Attempt> attempts;  // in trial order
  double wall_s = 0;

  double final_best() const;  // 0 when nothing was valid
  // 1-based attempt index at which the best so far first got <= target * (1 + tol); nullopt if never.
  std::optional<int> attempts_to_reach(double target, double tol) const;
  // The same counted in measurements (attempts that were run).
  std::optional<int> measurements_to_reach(double target, double tol) const;
  int invalid_attempts() const;
  int invalid_measured() const;
  int measurements() const;
};

// The median of the values that are not NaN (NaN: "never reached", "not measured"); NaN when
// none is left.
double median_of_known(std::vector<double> v);

// Appends every task and record of the database at `src` to `dst` (new ids; the same traces,
// features and timings): a warm-started run's database is other runs' records put together.
void copy_records(const std::string& src, Database& dst);

// The records of the task named `workload` in the database at `db_path`.
Run read_run(const std::string& db_path, const std::string& workload, const std::string& strategy, int seed);

}  // namespace attune::bench
