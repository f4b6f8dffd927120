// db/impl.hpp — Database's private state, shared by the .cpp files of src/db/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "db/connection.hpp"
#include "db/db.hpp"
#include "db/decode.hpp"

namespace attune {

struct Database::Impl {
  std::unique_ptr<db::Connection> conn;
  bool read_only = false;

  db::Connection& c() { return *conn; }
  const std::string& path() const { return conn->path(); }
  // Throws "PATH: opened read-only, cannot WHAT" for a write on a read-only Database.
  void require_writable(const char* what) const;
  // Throws for a record insert() must refuse before writing (a read-only Database, a trace
  // that is not JSON).
  void check_insertable(const Record& r) const;
};

namespace db {
// The task's next trial number: 1 + the largest of its records' and claims' (0 when none).
// Call inside a write transaction, so that no other process takes it in between.
std::int64_t next_trial(Connection& c, std::int64_t task_id);
// Inserts `r` (numbering it when r.trial is kNextTrial) and ends the claim of its trace, in the
// caller's write transaction; returns its id.
std::int64_t insert_record(Connection& c, const Record& r);
}  // namespace db

}  // namespace attune
