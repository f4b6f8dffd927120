#include "db/postgres.hpp"

#include <libpq-fe.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <vector>

#include "db/not_ready.hpp"
#include "ir/error.hpp"

namespace attune::db {

namespace {

// PostgreSQL's type oids (catalog/pg_type_d.h, stable across versions) for value().
constexpr Oid kByteaOid = 17, kInt8Oid = 20, kInt2Oid = 21, kInt4Oid = 23, kFloat4Oid = 700, kFloat8Oid = 701,
              kNumericOid = 1700;

// The whole transaction runs beside no other writer of the database (connection.hpp). One key
// for every attune database: the lock is per database, so other databases do not share it.
constexpr const char* kWriteLock = "SELECT pg_advisory_xact_lock(7152839045)";

// libpq's messages span lines ("...failed: FATAL:  password ...\n\tIs the server ...");
// attune's errors are one line.
std::string one_line(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

void ignore_notice(void*, const char*) {}

}  // namespace

bool is_postgres_url(std::string_view s) { return s.starts_with("postgresql://") || s.starts_with("postgres://"); }

std::string redact_url(std::string_view url) {
  std::string out(url);
  const std::size_t scheme = out.find("://");
  if (scheme == std::string::npos) return out;
  const std::size_t start = scheme + 3;
  const std::size_t end = out.find_first_of("/?", start);
  const std::size_t at = out.rfind('@', end == std::string::npos ? out.size() : end);
  if (at != std::string::npos && at >= start) {
    const std::size_t colon = out.find(':', start);
    if (colon != std::string::npos && colon < at) out.erase(colon, at - colon);
  }
  // password=... among the parameters.
  const std::size_t q = out.find('?');
  if (q == std::string::npos) return out;
  std::string kept;
  std::size_t from = q + 1;
  while (from <= out.size()) {
    std::size_t next = out.find('&', from);
    if (next == std::string::npos) next = out.size();
    const std::string param = out.substr(from, next - from);
    if (!param.starts_with("password=")) kept += (kept.empty() ? "" : "&") + param;
    from = next + 1;
  }
  out.erase(q);
  if (!kept.empty()) out += "?" + kept;
  return out;
}

std::string postgres_placeholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size());
  bool quoted = false;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (c == '\'') quoted = !quoted;
    const bool number_follows = i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9';
    out += !quoted && c == '?' && number_follows ? '$' : c;
  }
  return out;
}

PgConnection::PgConnection(const std::string& url) : shown_(redact_url(url)) {
  char* parse_error = nullptr;
  PQconninfoOption* opts = PQconninfoParse(url.c_str(), &parse_error);
  if (!opts) {
    const std::string why = parse_error ? one_line(parse_error) : "out of memory";
    PQfreemem(parse_error);
    throw Error(shown_ + ": invalid connection string: " + why);
  }
  PQconninfoFree(opts);
  // A password in the URL would show in process lists, shell histories and job files.
  if (shown_ != url)
    throw Error(shown_ +
                ": a password in the URL would show in process lists and logs: give it in PGPASSWORD "
                "or ~/.pgpass");
  // Earlier keywords are defaults the URL may override; a server that does not answer must
  // not hang a worker for ever.
  const char* keys[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {"10", "attune", url.c_str(), nullptr};
  conn_ = PQconnectdbParams(keys, values, 1);
  if (!conn_) throw Error(shown_ + ": cannot connect: out of memory");
  if (PQstatus(conn_) != CONNECTION_OK) {
    const std::string why = one_line(PQerrorMessage(conn_));
    PQfinish(conn_);
    conn_ = nullptr;
    if (PQpingParams(keys, values, 1) == PQPING_REJECT) throw DatabaseNotReady(shown_ + ": cannot connect yet: " + why);
    throw Error(shown_ + ": cannot connect: " + why);
  }
  PQsetNoticeProcessor(conn_, ignore_notice, nullptr);
}

PgConnection::~PgConnection() { PQfinish(conn_); }

std::string PgConnection::last_error() const { return one_line(PQerrorMessage(conn_)); }

void PgConnection::fail(std::string_view what, const std::string& message) const {
  throw Error(shown_ + ": " + std::string(what) + ": " + message);
}

namespace {

// The server's own words when it sent an error, else libpq's (a lost connection).
std::string result_error(const PgConnection& c, const PGresult* r) {
  const char* primary = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  if (primary && *primary) return one_line(primary);
  return c.last_error();
}

struct Result {
  PGresult* r = nullptr;
  ~Result() { PQclear(r); }
};

}  // namespace

void PgConnection::exec(const char* sql) {
  Result res{PQexec(conn_, sql)};
  const auto st = PQresultStatus(res.r);
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) fail("cannot write", result_error(*this, res.r));
}

void PgConnection::begin_write() {
  exec("BEGIN");
  exec(kWriteLock);
}

namespace {

class PgCursor final : public Cursor {
 public:
  PgCursor(PgConnection& c, const char* sql) : c_(c), sql_(postgres_placeholders(sql)) {}
  ~PgCursor() override { PQclear(res_); }

  void bind_int64(int i, std::int64_t v) override { set(i, std::to_string(v), false); }
  void bind_real(int i, double v) override {
    if (std::isnan(v)) return set(i, "NaN", false);
    if (std::isinf(v)) return set(i, v > 0 ? "Infinity" : "-Infinity", false);
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest text that reads back exactly
    set(i, std::string(buf, r.ptr), false);
  }
  void bind_text(int i, std::string_view text) override { set(i, std::string(text), false); }
  void bind_blob(int i, std::string_view bytes) override { set(i, std::string(bytes), true); }

  bool step() override {
    if (!res_) {
      execute();
      row_ = 0;
    } else {
      ++row_;
    }
    return row_ < PQntuples(res_);
  }

  std::int64_t int64(int col) const override {
    const char* v = PQgetvalue(res_, row_, col);
    return std::strtoll(v, nullptr, 10);
  }
  double real(int col) const override {
    if (is_null(col)) return std::numeric_limits<double>::quiet_NaN();
    return std::strtod(PQgetvalue(res_, row_, col), nullptr);  // reads NaN and Infinity too
  }
  std::string text(int col) const override {
    return std::string(PQgetvalue(res_, row_, col), static_cast<std::size_t>(PQgetlength(res_, row_, col)));
  }
  std::string blob(int col) const override {
    std::size_t n = 0;
    unsigned char* p = PQunescapeBytea(reinterpret_cast<const unsigned char*>(PQgetvalue(res_, row_, col)), &n);
    if (!p) c_.fail("cannot read", "out of memory");
    std::string out(reinterpret_cast<const char*>(p), n);
    PQfreemem(p);
    return out;
  }
  bool is_null(int col) const override { return PQgetisnull(res_, row_, col) != 0; }
  Value value(int col) const override {
    if (is_null(col)) return Value{};
    switch (PQftype(res_, col)) {
      case kInt2Oid:
      case kInt4Oid:
      case kInt8Oid: return Value{Value::Kind::integer, int64(col), 0, ""};
      case kFloat4Oid:
      case kFloat8Oid:
      case kNumericOid: return Value{Value::Kind::real, 0, real(col), ""};
      case kByteaOid: return Value{Value::Kind::blob, 0, 0, blob(col)};
      default: return Value{Value::Kind::text, 0, 0, text(col)};
    }
  }

 private:
  void set(int i, std::string v, bool binary) {
    const auto k = static_cast<std::size_t>(i - 1);
    if (params_.size() <= k) {
      params_.resize(k + 1);
      binary_.resize(k + 1, 0);
    }
    params_[k] = std::move(v);
    binary_[k] = binary ? 1 : 0;
  }

  void execute() {
    std::vector<const char*> values(params_.size());
    std::vector<int> lengths(params_.size());
    for (std::size_t i = 0; i < params_.size(); ++i) {
      values[i] = params_[i] ? params_[i]->data() : nullptr;
      lengths[i] = params_[i] ? static_cast<int>(params_[i]->size()) : 0;
    }
    res_ = PQexecParams(c_.get(), sql_.c_str(), static_cast<int>(params_.size()), nullptr, values.data(),
                        lengths.data(), binary_.data(), 0);
    const auto st = PQresultStatus(res_);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return;
    const std::string why = result_error(c_, res_);
    const bool reading = sql_.starts_with("SELECT");
    PQclear(res_);
    res_ = nullptr;
    c_.fail(reading ? "cannot read" : "cannot write", why);
  }

  PgConnection& c_;
  std::string sql_;
  std::vector<std::optional<std::string>> params_;
  std::vector<int> binary_;
  PGresult* res_ = nullptr;
  int row_ = 0;
};

}  // namespace

std::unique_ptr<Cursor> PgConnection::prepare(const char* sql) { return std::make_unique<PgCursor>(*this, sql); }

}  // namespace attune::db
