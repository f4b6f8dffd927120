// report/task_data.cpp — gathering each task's curves, spread, statuses, arms and ml2
// predictions from the databases (task_data.hpp).
#include "report/task_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <set>

#include "ir/error.hpp"
#include "ir/json_limits.hpp"
#include "ir/op.hpp"

namespace attune::report {

namespace {

constexpr std::size_t kExamplesPerStatus = 3;
constexpr std::size_t kExampleChars = 300;
// V's cut when a record does not say which one it ran with (ml2_search.cpp's default).
constexpr double kDefaultVCut = 0.65;

// The statuses the report always lists, in this order, even at zero.
const std::vector<std::string>& status_order() {
  static const std::vector<std::string> s = {"ok",      "invalid",     "compile_error", "runtime_error",
                                             "timeout", "wrong_result"};
  return s;
}

double io_bytes(const Op& op) {
  double b = 0;
  for (const auto& t : op.tensors) b += static_cast<double>(t.numel()) * static_cast<double>(dtype_size(t.dtype));
  return b;
}

bool selected(const TaskInfo& t, const std::vector<std::string>& only) {
  if (only.empty()) return true;
  for (const auto& o : only) {
    if (o == t.name || o == std::to_string(t.id)) return true;
    try {
      if (canonical_spec(op_from_cli(o)) == t.spec) return true;
    } catch (const Error&) {
      // not a spec: a name that matched nothing
    }
  }
  return false;
}

// The first line of a message, for an example.
std::string first_line(const std::string& s) {
  const auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl) + " ...";
}

// Adds the records of one (task, database) to `d`.
class Collector {
 public:
  Collector(TaskData& d, std::string db_label) : d_(d), db_label_(std::move(db_label)) {}

  void add(const std::vector<Record>& records) {
    for (const auto& r : records) add(r);
    for (auto& [strategy, run] : runs_) {
      // The best holds to the run's last attempt: the curve's last point is there.
      const End& e = end_[strategy];
      if (!run.by_trial.empty() && e.trial > run.by_trial.back().x)
        run.by_trial.push_back({e.trial, run.by_trial.back().y});
      if (!run.by_time.empty() && e.time > run.by_time.back().x) run.by_time.push_back({e.time, run.by_time.back().y});
      d_.runs.push_back(std::move(run));
    }
    for (auto& [strategy, se] : spread_) d_.spread.push_back(std::move(se));
  }

 private:
  double metric(double median_s) const {
    if (median_s <= 0 || !std::isfinite(median_s)) return NAN;
    return d_.have_op ? d_.flops / median_s / 1e9 : 1 / median_s;
  }

  void add(const Record& r) {
    if (d_.first_at.empty() || r.created_at < d_.first_at) d_.first_at = r.created_at;
    if (r.created_at > d_.last_at) d_.last_at = r.created_at;
    if (!r.compiler.empty()) ++d_.compilers[r.compiler];
    if (r.strategy == kConfirmStrategy) {
      ++d_.confirmations;
      return;
    }
    ++d_.trials;
    ++d_.strategies[r.strategy];
    count_status(r);
    const double v = r.ok() ? metric(r.median_s) : NAN;
    if (std::isfinite(v)) d_.best = std::max(d_.best, v);
    curve(r, v);
    arm(r, v);
    predictions(r, v);
  }

  void count_status(const Record& r) {
    const std::string s(status_name(r.status));
    auto it = std::find_if(d_.statuses.begin(), d_.statuses.end(), [&](const auto& c) { return c.status == s; });
    if (it == d_.statuses.end()) it = d_.statuses.insert(d_.statuses.end(), StatusCount{s, 0, {}});
    ++it->count;
    if (!r.ok() && it->examples.size() < kExamplesPerStatus) {
      std::string e = first_line(r.error.empty() ? std::string("(no message)") : r.error);
      if (e.size() > kExampleChars) e = e.substr(0, kExampleChars) + " ...";
      e = "trial " + std::to_string(r.trial) + ": " + e;
      it->examples.push_back(std::move(e));
    }
  }

  void curve(const Record& r, double v) {
    auto [it, fresh] = runs_.try_emplace(r.strategy);
    if (fresh) {
      it->second.label = r.strategy + (db_label_.empty() ? "" : " · " + db_label_);
      spread_[r.strategy] = {it->second.label, {}, SeriesStyle::dots};
    }
    const double trial = static_cast<double>(r.trial);
    const auto t = parse_utc(r.created_at);
    const auto t0 = first_time_.find(r.strategy);
    End& e = end_[r.strategy];
    e.trial = std::max(e.trial, trial);
    if (t && t0 != first_time_.end()) e.time = std::max(e.time, *t - t0->second);
    if (!std::isfinite(v)) return;
    spread_[r.strategy].points.push_back({trial, v});
    std::optional<double>& best = best_[r.strategy];
    if (best && v <= *best) return;
    best = v;
    it->second.by_trial.push_back({trial, v});
    if (t && t0 != first_time_.end()) it->second.by_time.push_back({*t - t0->second, v});
  }

  void arm(const Record& r, double v) {
    const bool mapped = r.features.is_object() && r.features.contains("space") && r.features["space"].is_string() &&
                        r.features["space"].get<std::string>().find("map") != std::string::npos;
    if (!mapped) return;
    const std::string name = arm_of_trace(r.trace);
    auto it = std::find_if(d_.arms.begin(), d_.arms.end(), [&](const auto& a) { return a.arm == name; });
    if (it == d_.arms.end()) it = d_.arms.insert(d_.arms.end(), ArmUse{name, 0, 0, 0});
    ++it->trials;
    if (std::isfinite(v)) {
      ++it->valid;
      it->best = std::max(it->best, v);
    }
  }

  void predictions(const Record& r, double v) {
    if (!r.features.is_object() || !r.features.contains("ml2") || !r.features["ml2"].is_object()) return;
    const auto& m = r.features["ml2"];
    auto number = [&](const char* k) -> std::optional<double> {
      if (!m.contains(k) || !m[k].is_number()) return std::nullopt;
      const double x = m[k].get<double>();
      return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
    };
    if (std::isfinite(v)) {
      if (const auto p = number("p")) d_.ml2.p.push_back({*p, v});
      if (const auto a = number("a")) d_.ml2.a.push_back({*a, v});
    }
    if (const auto pv = number("v")) {
      const bool said_valid = *pv >= number("v_cut").value_or(kDefaultVCut);
      ++d_.ml2.v_count;
      if (said_valid)
        ++(r.ok() ? d_.ml2.v_valid_ok : d_.ml2.v_valid_failed);
      else
        ++(r.ok() ? d_.ml2.v_invalid_ok : d_.ml2.v_invalid_failed);
    }
  }

 public:
  // Each strategy's first record time, found before the records are added.
  void note_first_times(const std::vector<Record>& records) {
    for (const auto& r : records)
      if (r.strategy != kConfirmStrategy && !first_time_.count(r.strategy))
        if (const auto t = parse_utc(r.created_at)) first_time_[r.strategy] = *t;
  }

 private:
  TaskData& d_;
  std::string db_label_;
  std::map<std::string, RunCurve> runs_;
  std::map<std::string, Series> spread_;
  struct End {
    double trial = 0, time = 0;  // the run's last attempt: trial number, seconds since its first
  };
  std::map<std::string, End> end_;
  std::map<std::string, std::optional<double>> best_;  // per strategy, so far
  std::map<std::string, double> first_time_;
};

}  // namespace

std::optional<double> parse_utc(const std::string& iso) {
  int y, mo, d, h, mi;
  double s;
  char z = 0;
  if (std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%c", &y, &mo, &d, &h, &mi, &s, &z) != 7 || z != 'Z')
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || !(s >= 0 && s < 61)) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  return static_cast<double>(timegm(&tm)) + s;
}

std::string arm_of_trace(const std::string& trace_json) {
  try {
    const auto j = parse_json_limited(trace_json, "trace");
    if (j.is_object() && j.contains("steps") && j["steps"].is_array() && !j["steps"].empty()) {
      const auto& last = j["steps"].back();
      if (last.is_object() && last.value("kind", nlohmann::json()) == "tensorize") {
        const std::string intrinsic = last.contains("intrinsic") && last["intrinsic"].is_string()
                                          ? last["intrinsic"].get<std::string>()
                                          : std::string("?");
        const std::string mapping = last.contains("mapping") ? last["mapping"].dump() : "?";
        return intrinsic + " mapping #" + mapping;
      }
    }
  } catch (const Error&) {
    return "unreadable trace";
  }
  return "loop-nest schedules";
}

std::vector<DbRuns> gather_runs(const std::vector<std::string>& db_paths) {
  std::vector<DbRuns> out;
  for (const auto& path : db_paths) out.push_back({path, Database::open(path, OpenMode::read_only).runs()});
  return out;
}

std::vector<TaskData> gather_tasks(const std::vector<std::string>& db_paths, const std::vector<std::string>& only) {
  std::vector<TaskData> out;
  std::map<std::string, std::size_t> by_hash;
  for (const auto& path : db_paths) {
    const Database db = Database::open(path, OpenMode::read_only);
    const std::string label = db_paths.size() > 1 ? std::filesystem::path(path).filename().string() : "";
    for (const auto& t : db.tasks()) {
      if (!selected(t, only)) continue;
      auto [it, fresh] = by_hash.try_emplace(t.hash, out.size());
      if (fresh) {
        TaskData d;
        d.task = t;
        try {
          const Op op = parse_spec(t.spec);
          d.flops = op.flops();
          d.bytes = io_bytes(op);
          d.have_op = d.flops > 0 && d.bytes > 0;
        } catch (const Error&) {
          d.have_op = false;  // shown in calls per second, off the roofline
        }
        d.metric = d.have_op ? "GFLOP/s" : "calls/s";
        for (const auto& s : status_order()) d.statuses.push_back({s, 0, {}});
        out.push_back(std::move(d));
      }
      TaskData& d = out[it->second];
      d.dbs.push_back(path);
      const std::vector<Record> records = db.records(t.id);
      Collector c(d, label);
      c.note_first_times(records);
      c.add(records);
    }
  }
  return out;
}

}  // namespace attune::report
