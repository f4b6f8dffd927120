// db/sqlite.hpp — the SQLite backend of db::Connection, private to src/db/.
//
// SqliteConnection owns a sqlite3*; its cursors own prepared sqlite3_stmt*s. Every failure
// becomes attune::Error whose message starts with the database path, so callers never see
// SQLite codes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "db/connection.hpp"

struct sqlite3;

namespace attune::db {

class SqliteConnection final : public Connection {
 public:
  // Opens with sqlite3_open_v2 flags; throws Error("PATH: cannot open: ...") on failure.
  // `open_as`, when given, is what SQLite is handed instead of the path (a "file:" URI; pass
  // SQLITE_OPEN_URI); messages still name the path.
  SqliteConnection(std::string path, int flags, const std::string& open_as = "");
  ~SqliteConnection() override;

  sqlite3* get() const { return db_; }
  Backend backend() const override { return Backend::sqlite; }
  const std::string& path() const override { return path_; }
  void exec(const char* sql) override;
  std::unique_ptr<Cursor> prepare(const char* sql) override;
  void begin_write() override { exec("BEGIN IMMEDIATE"); }
  void begin() override { exec("BEGIN IMMEDIATE"); }  // SQLite has one writer at a time anyway

  // Throws Error("PATH: WHAT: <sqlite message>") using the connection's last error.
  [[noreturn]] void fail(std::string_view what) const;

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace attune::db
