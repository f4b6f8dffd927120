// Database: inserting and querying tuning records (resume, best, history).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>

#include "db/impl.hpp"
#include "ir/error.hpp"
#include "ir/json_limits.hpp"

namespace attune {

using db::Statement;
using nlohmann::json;

// ---- Record <-> Measurement ---------------------------------------------------------------

void Record::set_measurement(const Measurement& m) {
  status = m.status;
  error = m.error;
  times_s = m.times_s;
  median_s = m.median_s;
  max_rel_error = m.max_rel_error;
  compile_s = m.compile_s;
}

Measurement Record::measurement() const {
  Measurement m;
  m.status = status;
  m.error = error;
  m.times_s = times_s;
  m.median_s = median_s;
  m.max_rel_error = max_rel_error;
  m.compile_s = compile_s;
  return m;
}

namespace {

// The record on the statement's current row (its first kRecordColumnCount columns).
Record decode(const Statement& st, const std::string& path) {
  return db::decode_record(st.values(0, db::kRecordColumnCount), path);
}

// JSON has no NaN or infinity: nlohmann writes them as null, and null reads back as NaN.
std::string times_to_json(const std::vector<double>& v) { return json(v).dump(); }

std::string select_records(const char* where_and_order) {
  return std::string("SELECT ") + db::kRecordColumns + " FROM records r " + where_and_order;
}

}  // namespace

namespace db {

std::int64_t insert_record(Connection& c, const Record& r) {
  const std::int64_t trial = r.trial == kNextTrial ? next_trial(c, r.task_id) : r.trial;
  Statement st(c,
               "INSERT INTO records(task_id, trace, trace_hash, status, error, times_s, median_s, "
               "max_rel_error, compile_s, features, hidden_features, compiler, flags, strategy, "
               "seed, trial, created_at) "
               "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17) RETURNING id");
  st.bind(1, r.task_id);
  st.bind(2, std::string_view(r.trace));
  st.bind(3, std::string_view(r.trace_hash));
  st.bind(4, status_name(r.status));
  st.bind(5, std::string_view(r.error));
  st.bind(6, std::string_view(times_to_json(r.times_s)));
  st.bind(7, r.median_s);
  st.bind(8, r.max_rel_error);
  st.bind(9, r.compile_s);
  st.bind(10, std::string_view(r.features.dump()));
  st.bind(11, std::string_view(r.hidden_features.dump()));
  st.bind(12, std::string_view(r.compiler));
  st.bind(13, std::string_view(json(r.flags).dump()));
  st.bind(14, std::string_view(r.strategy));
  st.bind(15, static_cast<std::int64_t>(r.seed));
  st.bind(16, trial);
  st.bind(17, std::string_view(r.created_at.empty() ? utc_now_iso8601() : r.created_at));
  ATTUNE_CHECK(st.step(), "INSERT ... RETURNING returns the row");
  const std::int64_t id = st.int64(0);
  st.run();  // the statement ends before the next one starts
  Statement unclaim(c, "DELETE FROM claims WHERE task_id = ?1 AND trace_hash = ?2");
  unclaim.bind(1, r.task_id).bind(2, std::string_view(r.trace_hash)).run();
  return id;
}

}  // namespace db

void Database::Impl::check_insertable(const Record& r) const {
  require_writable("insert a record");
  try {
    parse_json_limited(r.trace, "trace");
  } catch (const Error&) {
    throw Error(path() + ": the trace of a record for task " + std::to_string(r.task_id) + " is not valid JSON");
  }
}

std::int64_t Database::insert(const Record& r) {
  impl_->check_insertable(r);
  if (!task(r.task_id)) throw Error(impl_->path() + ": no task with id " + std::to_string(r.task_id));
  // One transaction: the record, its number when it asks for one, and the end of its claim.
  db::Transaction tx(impl_->c());
  const std::int64_t id = db::insert_record(impl_->c(), r);
  tx.commit();
  return id;
}

bool Database::has_trace(std::int64_t task_id, const std::string& trace_hash) const {
  Statement st(impl_->c(), "SELECT 1 FROM records WHERE task_id = ?1 AND trace_hash = ?2 LIMIT 1");
  st.bind(1, task_id).bind(2, std::string_view(trace_hash));
  return st.step();
}

std::set<std::string> Database::known_trace_hashes(std::int64_t task_id) const {
  Statement st(impl_->c(), "SELECT DISTINCT trace_hash FROM records WHERE task_id = ?1");
  st.bind(1, task_id);
  std::set<std::string> out;
  while (st.step()) out.insert(st.text(0));
  return out;
}

TaskCounts Database::counts(std::int64_t task_id) const {
  // Confirmations re-measure candidates already counted: not attempts of their own.
  Statement st(impl_->c(),
               "SELECT COALESCE(SUM(CASE WHEN strategy != 'confirm' THEN 1 ELSE 0 END), 0), "
               "COALESCE(SUM(CASE WHEN status = 'ok' AND strategy != 'confirm' THEN 1 ELSE 0 END), 0), "
               "COALESCE(MAX(trial) + 1, 0) FROM records WHERE task_id = ?1");
  st.bind(1, task_id);
  ATTUNE_CHECK(st.step(), "an aggregate query returns one row");
  return TaskCounts{st.int64(0), st.int64(1), st.int64(2)};
}

const Record* TraceMeasurements::own() const {
  for (const auto& r : ok)
    if (r.strategy != kConfirmStrategy) return &r;
  return nullptr;
}

std::vector<TraceMeasurements> Database::measurements_by_trace(std::int64_t task_id, const RecordFilter& keep) const {
  // read_record() refuses an ok record without a median, so none can sort first here.
  Statement st(impl_->c(), select_records("WHERE r.task_id = ?1 AND r.status = 'ok' ORDER BY r.id").c_str());
  st.bind(1, task_id);
  std::vector<TraceMeasurements> out;
  std::map<std::string, std::size_t> index;
  while (st.step()) {
    Record r = decode(st, impl_->path());
    if (keep && !keep(r)) continue;
    const auto [it, added] = index.emplace(r.trace_hash, out.size());
    if (added) out.emplace_back();
    TraceMeasurements& t = out[it->second];
    t.confirmations += r.strategy == kConfirmStrategy;
    t.ok.push_back(std::move(r));
  }
  return out;
}

std::optional<Record> Database::best(std::int64_t task_id, const RecordFilter& keep) const {
  std::vector<TraceMeasurements> traces = measurements_by_trace(task_id, keep);
  const bool confirmed_any =
      std::any_of(traces.begin(), traces.end(), [](const TraceMeasurements& t) { return t.confirmations > 0; });
  std::optional<Record> best;
  for (auto& t : traces) {
    if (!confirmed_any) {  // every record for itself; ties keep the earliest
      for (const auto& r : t.ok)
        if (!best || r.median_s < best->median_s || (r.median_s == best->median_s && r.id < best->id)) best = r;
      continue;
    }
    if (t.confirmations == 0) continue;
    // The upper median of the trace's measurements: one lucky run does not make it the best.
    std::stable_sort(t.ok.begin(), t.ok.end(),
                     [](const Record& a, const Record& b) { return a.median_s < b.median_s; });
    const Record& rep = t.ok[t.ok.size() / 2];
    if (!best || rep.median_s < best->median_s) best = rep;  // strictly: ties keep the earlier trace
  }
  return best;
}

std::vector<HistoryPoint> Database::history(std::int64_t task_id) const {
  Statement st(impl_->c(), select_records("WHERE r.task_id = ?1 ORDER BY r.id").c_str());
  st.bind(1, task_id);
  std::vector<HistoryPoint> out;
  std::optional<double> best;
  std::int64_t best_id = 0;
  while (st.step()) {
    const Record r = decode(st, impl_->path());
    HistoryPoint p;
    p.record_id = r.id;
    p.trial = r.trial;
    p.status = r.status;
    p.median_s = r.median_s;
    // Strictly lower only, so ties keep the earlier record, as best() does.
    if (r.ok() && (!best || p.median_s < *best)) {
      best = p.median_s;
      best_id = p.record_id;
    }
    p.best_s = best;
    p.best_record_id = best_id;
    out.push_back(p);
  }
  return out;
}

std::vector<Record> Database::records(std::int64_t task_id) const {
  Statement st(impl_->c(), select_records("WHERE r.task_id = ?1 ORDER BY r.id").c_str());
  st.bind(1, task_id);
  std::vector<Record> out;
  while (st.step()) out.push_back(decode(st, impl_->path()));
  return out;
}

std::optional<Record> Database::record(std::int64_t record_id) const {
  Statement st(impl_->c(), select_records("WHERE r.id = ?1").c_str());
  st.bind(1, record_id);
  if (!st.step()) return std::nullopt;
  return decode(st, impl_->path());
}

}  // namespace attune
