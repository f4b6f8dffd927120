// db/connection.hpp — what the SQL of src/db/ runs on, whichever server holds the database.
//
// Two backends implement Connection: SQLite (sqlite.hpp, a file on this machine, the default)
// and PostgreSQL (postgres.hpp, a server many machines share). Records, claims, tasks and the
// job queue are written once, against this interface, in SQL both understand: parameters are
// written `?1`, `?2` ... (PostgreSQL's backend turns them into `$1`, `$2`), new ids come back
// with `RETURNING id`, and a write that numbers trials runs in a write_transaction(), which
// each backend makes exclusive its own way (BEGIN IMMEDIATE; an advisory lock). Where the SQL
// truly differs the caller asks backend() and keeps both texts side by side.
//
// Every failure is attune::Error whose message starts with path() (for PostgreSQL the URL
// without its password), so callers never see a backend's codes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "db/value.hpp"

namespace attune::db {

enum class Backend { sqlite, postgres };

// One prepared statement and its current row; made by Connection::prepare().
class Cursor {
 public:
  virtual ~Cursor() = default;
  // Binds are 1-based, matching `?N`.
  virtual void bind_int64(int i, std::int64_t v) = 0;
  virtual void bind_real(int i, double v) = 0;
  virtual void bind_text(int i, std::string_view text) = 0;
  virtual void bind_blob(int i, std::string_view bytes) = 0;
  virtual bool step() = 0;
  virtual std::int64_t int64(int col) const = 0;
  virtual double real(int col) const = 0;  // NULL reads as NaN
  virtual std::string text(int col) const = 0;
  virtual std::string blob(int col) const = 0;
  virtual bool is_null(int col) const = 0;
  virtual Value value(int col) const = 0;
};

class Connection {
 public:
  virtual ~Connection() = default;
  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  virtual Backend backend() const = 0;
  // What errors name: the file, or the URL without its password.
  virtual const std::string& path() const = 0;
  // Runs one or more statements without results or parameters.
  virtual void exec(const char* sql) = 0;
  virtual std::unique_ptr<Cursor> prepare(const char* sql) = 0;
  // Starts a transaction that no other writer of the database runs beside (the numbering of
  // trials and claims depends on it); ends with exec("COMMIT") or exec("ROLLBACK").
  virtual void begin_write() = 0;
  // Starts an ordinary transaction (PostgreSQL: row locks only, so workers claim jobs at once).
  virtual void begin() = 0;
};

// A statement on a connection: the cursor's calls, chainable as the callers write them.
class Statement {
 public:
  Statement(Connection& c, const char* sql) : cur_(c.prepare(sql)) {}

  Statement& bind(int i, std::int64_t v) {
    cur_->bind_int64(i, v);
    return *this;
  }
  Statement& bind(int i, double v) {
    cur_->bind_real(i, v);
    return *this;
  }
  Statement& bind(int i, std::string_view text) {
    cur_->bind_text(i, text);
    return *this;
  }
  Statement& bind_blob(int i, std::string_view bytes) {
    cur_->bind_blob(i, bytes);
    return *this;
  }

  // True while a row is available; false when done.
  bool step() { return cur_->step(); }
  // Runs a statement that returns no rows.
  void run() {
    while (step()) {
    }
  }

  std::int64_t int64(int col) const { return cur_->int64(col); }
  double real(int col) const { return cur_->real(col); }
  std::string text(int col) const { return cur_->text(col); }
  std::string blob(int col) const { return cur_->blob(col); }
  bool is_null(int col) const { return cur_->is_null(col); }
  // Columns [first, first + count) with their storage classes, for decode_record().
  Row values(int first, int count) const {
    Row row;
    row.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) row.push_back(cur_->value(first + i));
    return row;
  }

 private:
  std::unique_ptr<Cursor> cur_;
};

// begin_write() (or begin() when `exclusive` is false) on construction; ROLLBACK in the
// destructor unless commit() ran.
class Transaction {
 public:
  explicit Transaction(Connection& c, bool exclusive = true);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  Connection& c_;
  bool done_ = false;
};

}  // namespace attune::db
