// db/sqlite.hpp — a thin RAII layer over the SQLite C API, private to src/db/.
//
// Connection owns a sqlite3*; Statement owns a prepared sqlite3_stmt*. Every failure becomes
// attune::Error whose message starts with the database path, so callers never see SQLite codes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "db/value.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace attune::db {

class Connection {
 public:
  // Opens with sqlite3_open_v2 flags; throws Error("PATH: cannot open: ...") on failure.
  // `open_as`, when given, is what SQLite is handed instead of the path (a "file:" URI; pass
  // SQLITE_OPEN_URI); messages still name the path.
  Connection(std::string path, int flags, const std::string& open_as = "");
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }

  // Runs one or more statements without results.
  void exec(const char* sql);
  // Throws Error("PATH: WHAT: <sqlite message>") using the connection's last error.
  [[noreturn]] void fail(std::string_view what) const;
  std::int64_t last_insert_id() const;

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(Connection& c, const char* sql);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Binds are 1-based, as in SQLite.
  Statement& bind(int i, std::int64_t v);
  Statement& bind(int i, double v);
  Statement& bind(int i, std::string_view text);
  Statement& bind_blob(int i, std::string_view bytes);

  // True while a row is available; false when done.
  bool step();
  // Runs a statement that returns no rows.
  void run();

  std::int64_t int64(int col) const;
  double real(int col) const;  // NULL reads as NaN (SQLite stores NaN as NULL)
  std::string text(int col) const;
  std::string blob(int col) const;
  bool is_null(int col) const;
  // Columns [first, first + count) with their storage classes, for decode_record().
  Row values(int first, int count) const;

 private:
  Connection& c_;
  sqlite3_stmt* st_ = nullptr;
};

// BEGIN IMMEDIATE on construction; ROLLBACK in the destructor unless commit() ran.
class Transaction {
 public:
  explicit Transaction(Connection& c);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  Connection& c_;
  bool done_ = false;
};

}  // namespace attune::db
