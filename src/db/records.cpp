// Database: inserting and querying tuning records (resume, best, history).
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <limits>
#include <map>

#include "ir/error.hpp"
#include "ir/json_limits.hpp"
#include "db/impl.hpp"

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

namespace db {

namespace {

// Reads the columns of one record row in order, checking each value's storage class: a row
// written by another program (or by hand) must give a clear error naming the record, never
// a silently wrong value (SQLite converts text to 0.0 where a number is read).
class RowReader {
 public:
  RowReader(const Statement& st, int first, const std::string& path) : st_(st), i_(first), path_(path) {}

  void set_id(std::int64_t id) { id_ = id; }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(path_ + ": record " + (id_ ? std::to_string(*id_) : std::string("?")) + ": " + what);
  }

  std::int64_t integer(const char* column) {
    expect(column, {"integer"});
    return st_.int64(i_++);
  }
  std::string text(const char* column) {
    expect(column, {"text"});
    return st_.text(i_++);
  }
  // NULL reads as NaN: SQLite stores a NaN as NULL.
  double real(const char* column) {
    expect(column, {"real", "integer", "null"});
    return st_.real(i_++);
  }
  nlohmann::json json_text(const char* column) {
    const std::string t = text(column);
    try {
      return parse_json_limited(t, std::string("column ") + column);
    } catch (const Error& e) {
      fail(e.what());
    }
  }

 private:
  void expect(const char* column, std::initializer_list<std::string_view> allowed) const {
    const std::string_view got = st_.type_name(i_);
    for (auto a : allowed)
      if (a == got) return;
    std::string want;
    for (auto a : allowed) want += (want.empty() ? "" : " or ") + std::string(a);
    fail("column " + std::string(column) + " holds " + std::string(got) + ", expected " + want);
  }

  const Statement& st_;
  int i_;
  const std::string& path_;
  std::optional<std::int64_t> id_;
};

}  // namespace

Record read_record(const Statement& st, int first, const std::string& path) {
  RowReader row(st, first, path);
  Record r;
  r.id = row.integer("id");
  row.set_id(r.id);
  r.task_id = row.integer("task_id");
  r.trace = row.text("trace");
  // Checked here, where the record is named, so that no later reader meets a trace that is
  // not JSON or nests without bound.
  try {
    parse_json_limited(r.trace, "column trace");
  } catch (const Error& e) {
    row.fail(e.what());
  }
  r.trace_hash = row.text("trace_hash");
  const std::string status = row.text("status");
  auto s = parse_status(status);
  if (!s) row.fail("unknown status '" + status + "'");
  r.status = *s;
  r.error = row.text("error");
  const json times = row.json_text("times_s");
  if (!times.is_array()) row.fail("column times_s is not a JSON array");
  for (const json& t : times) {
    if (!t.is_number() && !t.is_null()) row.fail("column times_s holds " + t.dump() + ", expected numbers");
    r.times_s.push_back(t.is_number() ? t.get<double>() : std::numeric_limits<double>::quiet_NaN());
  }
  r.median_s = row.real("median_s");
  if (r.ok() && !(r.median_s >= 0 && std::isfinite(r.median_s)))
    row.fail("status ok but column median_s is " + std::string(std::isnan(r.median_s) ? "NULL" : "not a finite time"));
  r.max_rel_error = row.real("max_rel_error");
  r.compile_s = row.real("compile_s");
  r.features = row.json_text("features");
  r.hidden_features = row.json_text("hidden_features");
  r.compiler = row.text("compiler");
  const json flags = row.json_text("flags");
  if (!flags.is_array() || !std::all_of(flags.begin(), flags.end(), [](const json& f) { return f.is_string(); }))
    row.fail("column flags is not a JSON array of strings");
  r.flags = flags.get<std::vector<std::string>>();
  r.strategy = row.text("strategy");
  // The seed is a full 64-bit value; SQLite integers are signed, so it is stored bit-cast.
  r.seed = static_cast<std::uint64_t>(row.integer("seed"));
  r.trial = row.integer("trial");
  r.created_at = row.text("created_at");
  return r;
}

}  // namespace db

namespace {

// JSON has no NaN or infinity: nlohmann writes them as null, and null reads back as NaN.
std::string times_to_json(const std::vector<double>& v) { return json(v).dump(); }

std::string select_records(const char* where_and_order) {
  return std::string("SELECT ") + db::kRecordColumns + " FROM records r " + where_and_order;
}

}  // namespace

std::int64_t Database::insert(const Record& r) {
  impl_->require_writable("insert a record");
  const std::string& path = impl_->path();
  try {
    parse_json_limited(r.trace, "trace");
  } catch (const Error&) {
    throw Error(path + ": the trace of a record for task " + std::to_string(r.task_id) +
                " is not valid JSON");
  }
  if (!task(r.task_id)) throw Error(path + ": no task with id " + std::to_string(r.task_id));

  // One statement in autocommit mode: its own transaction, durable when step() returns.
  Statement st(impl_->c(),
               "INSERT INTO records(task_id, trace, trace_hash, status, error, times_s, median_s, "
               "max_rel_error, compile_s, features, hidden_features, compiler, flags, strategy, "
               "seed, trial, created_at) "
               "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)");
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
  st.bind(16, r.trial);
  st.bind(17, std::string_view(r.created_at.empty() ? utc_now_iso8601() : r.created_at));
  st.run();
  return impl_->c().last_insert_id();
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
               "SELECT COALESCE(SUM(strategy != 'confirm'), 0), COALESCE(SUM(status = 'ok' AND strategy != 'confirm'), 0), "
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

std::vector<TraceMeasurements> Database::measurements_by_trace(std::int64_t task_id) const {
  // read_record() refuses an ok record without a median, so none can sort first here.
  Statement st(impl_->c(),
               select_records("WHERE r.task_id = ?1 AND r.status = 'ok' ORDER BY r.id")
                   .c_str());
  st.bind(1, task_id);
  std::vector<TraceMeasurements> out;
  std::map<std::string, std::size_t> index;
  while (st.step()) {
    Record r = db::read_record(st, 0, impl_->path());
    const auto [it, added] = index.emplace(r.trace_hash, out.size());
    if (added) out.emplace_back();
    TraceMeasurements& t = out[it->second];
    t.confirmations += r.strategy == kConfirmStrategy;
    t.ok.push_back(std::move(r));
  }
  return out;
}

std::optional<Record> Database::best(std::int64_t task_id) const {
  std::vector<TraceMeasurements> traces = measurements_by_trace(task_id);
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
    std::stable_sort(t.ok.begin(), t.ok.end(), [](const Record& a, const Record& b) { return a.median_s < b.median_s; });
    const Record& rep = t.ok[t.ok.size() / 2];
    if (!best || rep.median_s < best->median_s) best = rep;  // strictly: ties keep the earlier trace
  }
  return best;
}

std::vector<HistoryPoint> Database::history(std::int64_t task_id) const {
  Statement st(impl_->c(),
               "SELECT id, trial, status, median_s FROM records WHERE task_id = ?1 ORDER BY id");
  st.bind(1, task_id);
  std::vector<HistoryPoint> out;
  std::optional<double> best;
  std::int64_t best_id = 0;
  while (st.step()) {
    HistoryPoint p;
    p.record_id = st.int64(0);
    p.trial = st.int64(1);
    auto status = parse_status(st.text(2));
    if (!status)
      throw Error(impl_->path() + ": record " + std::to_string(p.record_id) +
                  " has unknown status '" + st.text(2) + "'");
    p.status = *status;
    p.median_s = st.real(3);
    // Strictly lower only, so ties keep the earlier record, as best() does.
    if (p.status == Status::ok && !std::isnan(p.median_s) && (!best || p.median_s < *best)) {
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
  while (st.step()) out.push_back(db::read_record(st, 0, impl_->path()));
  return out;
}

std::optional<Record> Database::record(std::int64_t record_id) const {
  Statement st(impl_->c(), select_records("WHERE r.id = ?1").c_str());
  st.bind(1, record_id);
  if (!st.step()) return std::nullopt;
  return db::read_record(st, 0, impl_->path());
}

}  // namespace attune
