#include "db/sqlite.hpp"

#include <sqlite3.h>

#include <cmath>
#include <limits>

#include "db/db.hpp"
#include "ir/error.hpp"

namespace attune::db {

namespace {

// Called by SQLite while another connection holds a lock it needs; nonzero means "try again".
// `count` is the number of earlier calls for this wait. Waits 1, 2, 4 ... 64 ms and then
// 100 ms a try, so that another process's short transaction is waited out at once and a long
// one (another tuner committing, a user's sqlite3 shell) costs no busy loop; gives up after
// kDbBusyWaitSeconds. A measured batch is worth waiting minutes for.
int busy_wait(void*, int count) {
  const long long waited_ms = count <= 7 ? (1LL << count) - 1 : 127 + 100LL * (count - 7);
  if (waited_ms >= 1000LL * kDbBusyWaitSeconds) return 0;
  sqlite3_sleep(count < 7 ? 1 << count : 100);
  return 1;
}

}  // namespace

SqliteConnection::SqliteConnection(std::string path, int flags, const std::string& open_as) : path_(std::move(path)) {
  int rc = sqlite3_open_v2((open_as.empty() ? path_ : open_as).c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(path_ + ": cannot open: " + msg);
  }
  // Extended codes tell "not a database" from other failures; the busy handler makes a
  // second attune process wait for the write lock instead of failing at once.
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_handler(db_, busy_wait, nullptr);
}

SqliteConnection::~SqliteConnection() { sqlite3_close_v2(db_); }

void SqliteConnection::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    throw Error(path_ + ": " + msg);
  }
}

void SqliteConnection::fail(std::string_view what) const {
  throw Error(path_ + ": " + std::string(what) + ": " + sqlite3_errmsg(db_));
}

namespace {

class SqliteCursor final : public Cursor {
 public:
  SqliteCursor(SqliteConnection& c, const char* sql) : c_(c) {
    if (sqlite3_prepare_v2(c.get(), sql, -1, &st_, nullptr) != SQLITE_OK) c.fail("cannot read");
  }
  ~SqliteCursor() override { sqlite3_finalize(st_); }

  void bind_int64(int i, std::int64_t v) override {
    if (sqlite3_bind_int64(st_, i, v) != SQLITE_OK) c_.fail("bind");
  }
  void bind_real(int i, double v) override {
    if (sqlite3_bind_double(st_, i, v) != SQLITE_OK) c_.fail("bind");
  }
  void bind_text(int i, std::string_view text) override {
    if (sqlite3_bind_text64(st_, i, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8) != SQLITE_OK)
      c_.fail("bind");
  }
  void bind_blob(int i, std::string_view bytes) override {
    // A zero-length blob must still be a blob, not NULL: pass a non-null pointer.
    static const char empty = 0;
    const char* p = bytes.empty() ? &empty : bytes.data();
    if (sqlite3_bind_blob64(st_, i, p, bytes.size(), SQLITE_TRANSIENT) != SQLITE_OK) c_.fail("bind");
  }

  bool step() override {
    int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    c_.fail(sqlite3_stmt_readonly(st_) ? "cannot read" : "cannot write");
  }

  std::int64_t int64(int col) const override { return sqlite3_column_int64(st_, col); }
  double real(int col) const override {
    if (is_null(col)) return std::numeric_limits<double>::quiet_NaN();
    return sqlite3_column_double(st_, col);
  }
  std::string text(int col) const override {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st_, col));
    int n = sqlite3_column_bytes(st_, col);
    return p ? std::string(p, static_cast<std::size_t>(n)) : std::string();
  }
  std::string blob(int col) const override {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(st_, col));
    int n = sqlite3_column_bytes(st_, col);
    return p ? std::string(p, static_cast<std::size_t>(n)) : std::string();
  }
  bool is_null(int col) const override { return sqlite3_column_type(st_, col) == SQLITE_NULL; }
  Value value(int col) const override {
    switch (sqlite3_column_type(st_, col)) {
      case SQLITE_INTEGER: return Value{Value::Kind::integer, int64(col), 0, ""};
      case SQLITE_FLOAT: return Value{Value::Kind::real, 0, sqlite3_column_double(st_, col), ""};
      case SQLITE_TEXT: return Value{Value::Kind::text, 0, 0, text(col)};
      case SQLITE_BLOB: return Value{Value::Kind::blob, 0, 0, blob(col)};
      default: return Value{};  // NULL
    }
  }

 private:
  SqliteConnection& c_;
  sqlite3_stmt* st_ = nullptr;
};

}  // namespace

std::unique_ptr<Cursor> SqliteConnection::prepare(const char* sql) {
  return std::make_unique<SqliteCursor>(*this, sql);
}

}  // namespace attune::db
