// Database::export_jsonl — every record as one self-contained JSON line, for tools outside
// attune (pandas, jq) and for moving records between databases.
#include <cmath>
#include <ostream>

#include "db/impl.hpp"
#include "ir/json_limits.hpp"

namespace attune {

using nlohmann::json;

namespace {

// JSON has no NaN/inf; write null rather than let a number turn into something else.
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json record_json(const Record& r, const TaskInfo& t) {
  json times = json::array();
  for (double v : r.times_s) times.push_back(number(v));
  return json{
      {"id", r.id},
      {"task", {{"id", t.id}, {"name", t.name}, {"spec", t.spec}, {"target", t.target}, {"hash", t.hash}}},
      // decode_record() has checked that the trace is JSON within parse_json_limited's bounds.
      {"trace", parse_json_limited(r.trace, "trace")},
      {"trace_hash", r.trace_hash},
      {"status", std::string(status_name(r.status))},
      {"error", r.error},
      {"times_s", times},
      {"median_s", number(r.median_s)},
      {"max_rel_error", number(r.max_rel_error)},
      {"compile_s", number(r.compile_s)},
      {"features", r.features},
      {"hidden_features", r.hidden_features},
      {"compiler", r.compiler},
      {"flags", r.flags},
      {"strategy", r.strategy},
      {"seed", r.seed},
      {"trial", r.trial},
      {"created_at", r.created_at},
  };
}

}  // namespace

void Database::export_jsonl(std::ostream& out) const {
  std::string sql = std::string("SELECT ") + db::kRecordColumns +
                    ", t.id, t.name, t.spec, t.target, t.hash, t.created_at "
                    "FROM records r JOIN tasks t ON t.id = r.task_id ORDER BY r.id";
  db::Statement st(impl_->c(), sql.c_str());
  while (st.step()) {
    Record r = db::decode_record(st.values(0, db::kRecordColumnCount), impl_->path());
    const int c = db::kRecordColumnCount;
    TaskInfo t{st.int64(c), st.text(c + 1), st.text(c + 2), st.text(c + 3), st.text(c + 4), st.text(c + 5)};
    out << record_json(r, t).dump() << '\n';
  }
  out.flush();
}

}  // namespace attune
