// decode_record(): one record row, checked column by column (decode.hpp).
#include "db/decode.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>

#include "ir/error.hpp"
#include "ir/json_limits.hpp"

namespace attune::db {

using nlohmann::json;

const char* kind_name(Value::Kind k) {
  switch (k) {
    case Value::Kind::integer: return "integer";
    case Value::Kind::real: return "real";
    case Value::Kind::text: return "text";
    case Value::Kind::blob: return "blob";
    case Value::Kind::null: break;
  }
  return "null";
}

namespace {

using Kind = Value::Kind;

// Reads the columns of one record row in order, checking each value's storage class: a row
// written by another program (or by hand) must give a clear error naming the record, never
// a silently wrong value (SQLite converts text to 0.0 where a number is read).
class RowReader {
 public:
  RowReader(const Row& row, std::size_t first, const std::string& origin) : row_(row), i_(first), origin_(origin) {}

  void set_id(std::int64_t id) { id_ = id; }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(origin_ + ": record " + (id_ ? std::to_string(*id_) : std::string("?")) + ": " + what);
  }

  std::int64_t integer(const char* column) { return take(column, {Kind::integer}).integer; }
  std::string text(const char* column) { return take(column, {Kind::text}).bytes; }
  // NULL reads as NaN: SQLite stores a NaN as NULL.
  double real(const char* column) {
    const Value& v = take(column, {Kind::real, Kind::integer, Kind::null});
    if (v.kind == Kind::null) return std::numeric_limits<double>::quiet_NaN();
    return v.kind == Kind::real ? v.real : static_cast<double>(v.integer);
  }
  json json_text(const char* column) {
    const std::string t = text(column);
    try {
      return parse_json_limited(t, std::string("column ") + column);
    } catch (const Error& e) {
      fail(e.what());
    }
  }

 private:
  const Value& take(const char* column, std::initializer_list<Kind> allowed) {
    const Value& v = row_[i_++];
    if (std::find(allowed.begin(), allowed.end(), v.kind) != allowed.end()) return v;
    std::string want;
    for (auto a : allowed) want += (want.empty() ? "" : " or ") + std::string(kind_name(a));
    fail("column " + std::string(column) + " holds " + kind_name(v.kind) + ", expected " + want);
  }

  const Row& row_;
  std::size_t i_;
  const std::string& origin_;
  std::optional<std::int64_t> id_;
};

}  // namespace

Record decode_record(const Row& row, const std::string& origin, std::size_t first) {
  ATTUNE_CHECK(row.size() >= first + kRecordColumnCount, "a record query selects kRecordColumns");
  RowReader in(row, first, origin);
  Record r;
  r.id = in.integer("id");
  in.set_id(r.id);
  r.task_id = in.integer("task_id");
  r.trace = in.text("trace");
  // Checked here, where the record is named, so that no later reader meets a trace that is
  // not JSON or nests without bound.
  try {
    parse_json_limited(r.trace, "column trace");
  } catch (const Error& e) {
    in.fail(e.what());
  }
  r.trace_hash = in.text("trace_hash");
  const std::string status = in.text("status");
  auto s = parse_status(status);
  if (!s) in.fail("unknown status '" + status + "'");
  r.status = *s;
  r.error = in.text("error");
  const json times = in.json_text("times_s");
  if (!times.is_array()) in.fail("column times_s is not a JSON array");
  for (const json& t : times) {
    if (!t.is_number() && !t.is_null()) in.fail("column times_s holds " + t.dump() + ", expected numbers");
    r.times_s.push_back(t.is_number() ? t.get<double>() : std::numeric_limits<double>::quiet_NaN());
  }
  r.median_s = in.real("median_s");
  if (r.ok() && !(r.median_s >= 0 && std::isfinite(r.median_s)))
    in.fail("status ok but column median_s is " + std::string(std::isnan(r.median_s) ? "NULL" : "not a finite time"));
  r.max_rel_error = in.real("max_rel_error");
  r.compile_s = in.real("compile_s");
  r.features = in.json_text("features");
  r.hidden_features = in.json_text("hidden_features");
  r.compiler = in.text("compiler");
  const json flags = in.json_text("flags");
  if (!flags.is_array() || !std::all_of(flags.begin(), flags.end(), [](const json& f) { return f.is_string(); }))
    in.fail("column flags is not a JSON array of strings");
  r.flags = flags.get<std::vector<std::string>>();
  r.strategy = in.text("strategy");
  // The seed is a full 64-bit value; SQLite integers are signed, so it is stored bit-cast.
  r.seed = static_cast<std::uint64_t>(in.integer("seed"));
  r.trial = in.integer("trial");
  r.created_at = in.text("created_at");
  return r;
}

}  // namespace attune::db
