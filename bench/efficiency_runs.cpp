// Reading a tuning run back from its database (efficiency_runs.hpp).
#include "efficiency_runs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attune::bench {

double Run::final_best() const {
  double b = 0;
  for (const auto& a : attempts)
    if (a.status == Status::ok && (b == 0 || a.time_s < b)) b = a.time_s;
  return b;
}

namespace {
std::optional<int> reach(const std::vector<Attempt>& as, double target, double tol, bool count_unmeasured) {
  double best = 0;
  int n = 0;
  for (const auto& a : as) {
    if (count_unmeasured || a.measured) ++n;
    if (a.status == Status::ok && (best == 0 || a.time_s < best)) best = a.time_s;
    if (best > 0 && best <= target * (1 + tol)) return n;
  }
  return std::nullopt;
}
}  // namespace

std::optional<int> Run::attempts_to_reach(double target, double tol) const {
  return reach(attempts, target, tol, true);
}
std::optional<int> Run::measurements_to_reach(double target, double tol) const {
  return reach(attempts, target, tol, false);
}

int Run::invalid_attempts() const {
  int n = 0;
  for (const auto& a : attempts) n += a.status != Status::ok;
  return n;
}
int Run::invalid_measured() const {
  int n = 0;
  for (const auto& a : attempts) n += a.status != Status::ok && a.measured;
  return n;
}
int Run::measurements() const {
  int n = 0;
  for (const auto& a : attempts) n += a.measured;
  return n;
}

double median_of_known(std::vector<double> v) {
  std::erase_if(v, [](double x) { return x != x; });
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void copy_records(const std::string& src, Database& dst) {
  const Database from = Database::open(src, OpenMode::read_only);
  for (const TaskInfo& t : from.tasks()) {
    const TaskInfo to = dst.get_or_create_task(t.name, t.spec, t.target);
    for (Record r : from.records(t.id)) {
      r.id = 0;
      r.task_id = to.id;
      dst.insert(r);
    }
  }
}

Run read_run(const std::string& db_path, const std::string& workload, const std::string& strategy, int seed) {
  Run run{workload, strategy, seed, {}, 0};
  Database db = Database::open(db_path, OpenMode::read_only);
  for (const auto& t : db.tasks()) {
    if (t.name != workload) continue;  // a warm-started run's database holds other ops' records too
    for (const auto& r : db.records(t.id)) {
      Attempt a;
      a.status = r.status;
      a.time_s = r.ok() ? r.median_s : 0;
      a.measured = r.features.value("measured", true);
      if (r.features.contains("visible"))
        for (const auto& v : r.features["visible"])
          a.visible.push_back(v.is_number() ? v.get<float>() : std::numeric_limits<float>::quiet_NaN());
      a.hidden = r.hidden_features;
      run.attempts.push_back(std::move(a));
    }
  }
  return run;
}

}  // namespace attune::bench
