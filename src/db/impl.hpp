// db/impl.hpp — Database's private state, shared by the .cpp files of src/db/.
#pragma once

#include <memory>
#include <string>

#include "db/db.hpp"
#include "db/sqlite.hpp"

namespace attune {

struct Database::Impl {
  std::unique_ptr<db::Connection> conn;
  bool read_only = false;

  db::Connection& c() { return *conn; }
  const std::string& path() const { return conn->path(); }
  // Throws "PATH: opened read-only, cannot WHAT" for a write on a read-only Database.
  void require_writable(const char* what) const;
};

namespace db {
// The column list every record query selects, in the order read_record() expects.
inline constexpr const char* kRecordColumns =
    "r.id, r.task_id, r.trace, r.trace_hash, r.status, r.error, r.times_s, r.median_s, "
    "r.max_rel_error, r.compile_s, r.features, r.hidden_features, r.compiler, r.flags, "
    "r.strategy, r.seed, r.trial, r.created_at";
inline constexpr int kRecordColumnCount = 18;

// Reads a record from columns [first, first + kRecordColumnCount) of the current row.
Record read_record(const Statement& st, int first, const std::string& path);
}  // namespace db

}  // namespace attune
