// hostile_rows_test.cpp — rows another program (or a person with sqlite3) wrote into a
// database: each wrong-typed or malformed column is a clear error naming the record, never a
// silently wrong value or a crash. And databases on read-only files and directories open.
#include <sqlite3.h>
#include <sys/stat.h>

#include <functional>
#include <sstream>

#include "db_test_util.hpp"
#include "ir/error.hpp"
#include "unprivileged.hpp"

namespace attune {
namespace {

using testing::raw_sql;
using testing::ScratchDir;

// A database with one task and one ok record; returns the record's id.
std::int64_t one_ok_record(const std::string& path, std::int64_t* task_id = nullptr) {
  auto db = Database::open(path);
  const auto t = db.get_or_create_task("t", "spec", "x86");
  std::mt19937_64 rng(7);
  Record r = testing::random_record(rng, t.id, 0);
  r.status = Status::ok;
  r.error.clear();
  r.median_s = 1e-3;
  if (task_id) *task_id = t.id;
  return db.insert(r);
}

// What reading the record back after `sql` says.
std::string error_after(const std::string& sql) {
  ScratchDir dir;
  const std::string path = dir.file("attune.db");
  std::int64_t task_id = 0;
  const auto id = one_ok_record(path, &task_id);
  raw_sql(path, sql);
  auto db = Database::open(path, OpenMode::read_only);
  std::string out;
  for (const auto& read : std::vector<std::function<void()>>{[&] { db.records(task_id); }, [&] { db.record(id); },
                                                             [&] { db.best(task_id); }, [&] { db.history(task_id); },
                                                             [&] {
                                                               std::ostringstream os;
                                                               db.export_jsonl(os);
                                                             }}) {
    try {
      read();
      out += "(accepted)\n";
    } catch (const Error& e) {
      out += std::string(e.what()).substr(path.size()) + "\n";
    }
  }
  // Every reader gives the same message.
  std::istringstream lines(out);
  std::string first, line;
  std::getline(lines, first);
  while (std::getline(lines, line)) EXPECT_EQ(line, first);
  return first;
}

TEST(DbHostileRows, WrongTypedColumnsNameTheRecord) {
  EXPECT_EQ(error_after("UPDATE records SET median_s = NULL"), ": record 1: status ok but column median_s is NULL");
  EXPECT_EQ(error_after("UPDATE records SET max_rel_error = 'abc'"),
            ": record 1: column max_rel_error holds text, expected real or integer or null");
  EXPECT_EQ(error_after("UPDATE records SET median_s = x'00'"),
            ": record 1: column median_s holds blob, expected real or integer or null");
  EXPECT_EQ(error_after("UPDATE records SET trial = 'seven'"), ": record 1: column trial holds text, expected integer");
  EXPECT_EQ(error_after("UPDATE records SET flags = '[1, 2]'"),
            ": record 1: column flags is not a JSON array of strings");
  EXPECT_EQ(error_after("UPDATE records SET times_s = '{\"a\": 1}'"), ": record 1: column times_s is not a JSON array");
  EXPECT_EQ(error_after("UPDATE records SET times_s = '[\"x\"]'"),
            ": record 1: column times_s holds \"x\", expected numbers");
  EXPECT_EQ(error_after("UPDATE records SET features = '{'"),
            ": record 1: column features: invalid JSON: line 1, column 2: syntax error while parsing object key - "
            "unexpected end of input; expected string literal");
}

TEST(DbHostileRows, DeeplyNestedJsonColumnsAreErrorsNotCrashes) {
  const std::string deep(100000, '[');
  for (const char* column : {"features", "hidden_features", "times_s", "flags", "trace"}) {
    SCOPED_TRACE(column);
    EXPECT_EQ(error_after(std::string("UPDATE records SET ") + column + " = '" + deep + "'"),
              std::string(": record 1: column ") + column + ": JSON nested deeper than 64 levels (at byte 64)");
  }
}

// A database whose directory, or whose file, this process cannot write: reading works.
std::string read_as_unprivileged(bool lock_dir) {
  ScratchDir dir;
  const std::string path = dir.file("attune.db");
  std::int64_t task_id = 0;
  one_ok_record(path, &task_id);
  return testing::as_unprivileged_owner({dir.path().string(), path}, [&] {
    std::filesystem::permissions(path, std::filesystem::perms::owner_read);
    if (lock_dir)
      std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    std::string out;
    try {
      auto db = Database::open(path, OpenMode::read_only);
      const auto best = db.best(task_id);
      out = best ? "best " + std::to_string(best->id) : "no best";
      std::ostringstream os;
      db.export_jsonl(os);
      out += os.str().empty() ? ", no export" : ", exported";
    } catch (const Error& e) {
      out = e.what();
    }
    std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_all);
    std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    return out;
  });
}

TEST(DbHostileRows, ReadOnlyFileOpensReadOnly) { EXPECT_EQ(read_as_unprivileged(false), "best 1, exported"); }

TEST(DbHostileRows, ReadOnlyDirectoryOpensReadOnly) { EXPECT_EQ(read_as_unprivileged(true), "best 1, exported"); }

}  // namespace
}  // namespace attune
