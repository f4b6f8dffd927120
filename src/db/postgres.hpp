// db/postgres.hpp — the PostgreSQL backend of db::Connection (libpq), private to src/db/.
//
// A database on a server that many machines share: `--db postgresql://USER@HOST/DB`. The
// password never travels in attune's arguments or records: libpq reads it from PGPASSWORD or
// ~/.pgpass. Should a URL carry one anyway, path() and every message show the URL without it.
// Statements are sent with their parameters (never spliced into the SQL); `?N` placeholders
// become `$N`. Errors are one line: "URL: cannot connect: ...", "URL: cannot write: ...".
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "db/connection.hpp"

struct pg_conn;

namespace attune::db {

// Whether `--db` names a PostgreSQL database rather than an SQLite file.
bool is_postgres_url(std::string_view s);
// The URL with any password (in the user part or a password= parameter) removed.
std::string redact_url(std::string_view url);
// `?N` placeholders outside quoted text turned into `$N`.
std::string postgres_placeholders(std::string_view sql);

class PgConnection final : public Connection {
 public:
  // Connects; throws Error("URL: cannot connect: <libpq's reason, one line>").
  explicit PgConnection(const std::string& url);
  ~PgConnection() override;

  Backend backend() const override { return Backend::postgres; }
  const std::string& path() const override { return shown_; }
  void exec(const char* sql) override;
  std::unique_ptr<Cursor> prepare(const char* sql) override;
  void begin_write() override;
  void begin() override { exec("BEGIN"); }

  pg_conn* get() const { return conn_; }
  // Throws Error("URL: WHAT: <the server's or libpq's message, one line>").
  [[noreturn]] void fail(std::string_view what, const std::string& message) const;
  std::string last_error() const;

 private:
  std::string shown_;
  pg_conn* conn_ = nullptr;
};

}  // namespace attune::db
