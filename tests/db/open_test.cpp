// Opening: schema creation, reopen, and every refusal — which must leave the file untouched.
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <sstream>

#include "db_test_util.hpp"
#include "ir/error.hpp"
#include "unprivileged.hpp"

namespace attune {
namespace {

ATTUNE_ON_BOTH_BACKENDS(DbAccess);

using testing::raw_sql;
using testing::read_bytes;
using testing::ScratchDir;
using testing::write_bytes;

std::string open_error(const std::string& path, OpenMode mode) {
  try {
    Database::open(path, mode);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(DbOpen, CreatesSchemaAndReopens) {
  ScratchDir dir;
  std::string path = dir.file("attune.db");
  std::int64_t task_id;
  {
    auto db = Database::open(path, OpenMode::read_write_create);
    EXPECT_EQ(db.path(), path);
    EXPECT_FALSE(db.read_only());
    EXPECT_TRUE(db.tasks().empty());
    task_id = db.get_or_create_task("gemm", testing::kGemmSpec, "x86").id;
  }
  ASSERT_TRUE(std::filesystem::exists(path));
  auto db = Database::open(path, OpenMode::read_write_create);
  ASSERT_EQ(db.tasks().size(), 1u);
  EXPECT_EQ(db.tasks()[0].id, task_id);

  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  auto one = [&](const char* sql) {
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(raw, sql, -1, &st, nullptr), SQLITE_OK) << sql;
    EXPECT_EQ(sqlite3_step(st), SQLITE_ROW) << sql;
    std::string v = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v;
  };
  EXPECT_EQ(one("SELECT value FROM meta WHERE key = 'schema_version'"), std::to_string(kDbSchemaVersion));
  EXPECT_EQ(one("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(one("SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_schema "
                "WHERE type = 'table' ORDER BY name)"),
            "claims,jobs,meta,models,records,runs,tasks");
  sqlite3_close(raw);
}

TEST(DbOpen, EmptyFileBecomesADatabase) {
  ScratchDir dir;
  std::string path = dir.file("empty.db");
  write_bytes(path, "");
  EXPECT_EQ(open_error(path, OpenMode::read_only), path + ": not an attune database (it is empty)");
  EXPECT_EQ(read_bytes(path), "");
  auto db = Database::open(path, OpenMode::read_write_create);
  EXPECT_NO_THROW(db.get_or_create_task("t", "spec", "x86"));
}

TEST(DbOpen, GarbageFileIsRefusedAndUntouched) {
  ScratchDir dir;
  std::mt19937_64 rng(7);
  for (std::size_t size : {1, 15, 16, 100, 4096, 65536 + 3}) {
    std::string path = dir.file("garbage" + std::to_string(size) + ".db");
    std::string bytes = testing::random_bytes(rng, size);
    write_bytes(path, bytes);
    for (auto mode : {OpenMode::read_write_create, OpenMode::read_only}) {
      EXPECT_EQ(open_error(path, mode), path + ": not an attune database (file is not a database)");
      EXPECT_EQ(read_bytes(path), bytes) << size;
    }
    EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
  }
}

TEST(DbOpen, SqliteHeaderWithGarbageAfterIsRefused) {
  // Passes the header check; SQLite itself must then find the damage.
  ScratchDir dir;
  std::string path = dir.file("fake.db");
  std::mt19937_64 rng(11);
  std::string bytes = std::string("SQLite format 3", 16) + testing::random_bytes(rng, 8192);
  write_bytes(path, bytes);
  for (auto mode : {OpenMode::read_write_create, OpenMode::read_only}) {
    std::string msg = open_error(path, mode);
    EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
    EXPECT_NE(msg, "(no error)");
    EXPECT_EQ(read_bytes(path), bytes);
  }
}

TEST(DbOpen, DamagedAttuneDatabaseIsRefusedAndUntouched) {
  ScratchDir dir;
  std::string path = dir.file("attune.db");
  {
    auto db = Database::open(path, OpenMode::read_write_create);
    auto t = db.get_or_create_task("t", "spec", "x86");
    std::mt19937_64 rng(3);
    for (int i = 0; i < 200; ++i) {
      Record r = testing::random_record(rng, t.id, i);
      r.error = std::string(500, 'x');  // make the table span many pages
      db.insert(r);
    }
  }
  std::string bytes = read_bytes(path);
  ASSERT_GT(bytes.size(), 16 * 4096u);
  // Keep page 1 (the schema) and overwrite the pages of the records table with garbage.
  std::mt19937_64 rng(5);
  for (std::size_t i = 4 * 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(rng());
  write_bytes(path, bytes);
  std::string msg = open_error(path, OpenMode::read_write_create);
  EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
  EXPECT_NE(msg.find("corrupt"), std::string::npos) << msg;
  EXPECT_EQ(read_bytes(path), bytes);
}

TEST(DbOpen, ForeignSqliteDatabaseIsRefusedAndUntouched) {
  ScratchDir dir;
  std::string path = dir.file("other.db");
  raw_sql(path,
          "CREATE TABLE users(name TEXT); CREATE TABLE orders(id INTEGER);"
          "INSERT INTO users VALUES ('ada');");
  std::string bytes = read_bytes(path);
  for (auto mode : {OpenMode::read_write_create, OpenMode::read_only}) {
    EXPECT_EQ(open_error(path, mode),
              path + ": not an attune database (it has tables orders, users and no attune meta table)");
    EXPECT_EQ(read_bytes(path), bytes);
  }
}

TEST(DbOpen, UnknownSchemaVersionIsRefused) {
  ScratchDir dir;
  std::string path = dir.file("future.db");
  Database::open(path, OpenMode::read_write_create);
  raw_sql(path, "UPDATE meta SET value = '99' WHERE key = 'schema_version'");
  std::string bytes = read_bytes(path);
  for (auto mode : {OpenMode::read_write_create, OpenMode::read_only}) {
    EXPECT_EQ(open_error(path, mode), path + ": unsupported schema_version 99 (this attune reads 1 to 4)");
    EXPECT_EQ(read_bytes(path), bytes);
  }
}

TEST(DbOpen, MetaWithoutVersionIsRefused) {
  ScratchDir dir;
  std::string path = dir.file("meta.db");
  raw_sql(path, "CREATE TABLE meta(key TEXT, value TEXT)");
  EXPECT_EQ(open_error(path, OpenMode::read_write_create),
            path + ": not an attune database (its meta table has no schema_version)");
}

TEST(DbOpen, MissingDirectory) {
  ScratchDir dir;
  std::string missing = dir.file("no/such");
  std::string path = missing + "/attune.db";
  EXPECT_EQ(open_error(path, OpenMode::read_write_create),
            path + ": cannot create: directory " + missing + " does not exist");
  EXPECT_FALSE(std::filesystem::exists(dir.file("no")));
}

TEST(DbOpen, ReadOnlyOfMissingFileCreatesNothing) {
  ScratchDir dir;
  std::string path = dir.file("attune.db");
  EXPECT_EQ(open_error(path, OpenMode::read_only), path + ": no database at " + path);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(DbOpen, DirectoryAsPath) {
  ScratchDir dir;
  EXPECT_EQ(open_error(dir.path().string(), OpenMode::read_write_create),
            dir.path().string() + ": cannot open: is a directory");
}

TEST(DbOpen, InMemoryAndEmptyPaths) {
  auto db = Database::open(":memory:");
  auto t = db.get_or_create_task("t", "spec", "x86");
  std::mt19937_64 rng(12);
  db.insert(testing::random_record(rng, t.id, 0));
  EXPECT_EQ(db.counts(t.id).trials, 1);
  EXPECT_FALSE(std::filesystem::exists(":memory:"));
  EXPECT_EQ(open_error(":memory:", OpenMode::read_only), ":memory:: no database at :memory:");
  EXPECT_EQ(open_error("", OpenMode::read_write_create), "database path is empty");
}

// Runs `fn` as the owner of `dir` and `path` without root's privileges (unprivileged.hpp).
std::string as_unprivileged_owner(const ScratchDir& dir, const std::string& path,
                                  const std::function<std::string()>& fn) {
  return testing::as_unprivileged_owner({dir.path().string(), path}, fn);
}

TEST(DbOpen, PermissionDenied) {
  ScratchDir dir;
  std::string path = dir.file("attune.db");
  Database::open(path, OpenMode::read_write_create);
  // The three refusals, one a line: no access at all (read-write, then read-only), then read-only.
  const std::string got = as_unprivileged_owner(dir, path, [&] {
    std::filesystem::permissions(path, std::filesystem::perms::none);
    std::string out = open_error(path, OpenMode::read_write_create) + "\n";
    out += open_error(path, OpenMode::read_only) + "\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_read);
    return out + open_error(path, OpenMode::read_write_create);
  });
  std::istringstream lines(got);
  std::string none_rw, none_ro, read_rw;
  std::getline(lines, none_rw);
  std::getline(lines, none_ro);
  std::getline(lines, read_rw);
  EXPECT_EQ(none_rw, path + ": cannot open: permission denied");
  EXPECT_EQ(none_ro, path + ": cannot open: permission denied");
  EXPECT_EQ(read_rw, path + ": cannot open for writing: permission denied");
}

TEST_P(DbAccess, ReadOnlyRefusesWrites) {
  std::string path = dir.file("attune.db");
  std::int64_t task_id;
  {
    auto db = Database::open(path, OpenMode::read_write_create);
    task_id = db.get_or_create_task("t", "spec", "x86").id;
  }
  const std::string bytes = backend() == testing::Backend::sqlite ? read_bytes(path) : "";
  auto db = Database::open(path, OpenMode::read_only);
  EXPECT_TRUE(db.read_only());
  std::mt19937_64 rng(1);
  try {
    db.insert(testing::random_record(rng, task_id, 0));
    ADD_FAILURE() << "insert on a read-only database";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": opened read-only, cannot insert a record");
  }
  EXPECT_THROW(db.get_or_create_task("u", "other spec", "x86"), Error);
  EXPECT_THROW(db.save_model("x86", "V", "blob"), Error);
  // Reads of an existing task still work.
  EXPECT_EQ(db.get_or_create_task("t", "spec", "x86").id, task_id);
  if (backend() == testing::Backend::sqlite) {
    EXPECT_EQ(read_bytes(path), bytes);
  }
}

TEST_P(DbAccess, ReaderSeesWritersCommits) {
  std::string path = dir.file("attune.db");
  auto writer = Database::open(path, OpenMode::read_write_create);
  auto t = writer.get_or_create_task("t", "spec", "x86");
  auto reader = Database::open(path, OpenMode::read_only);
  std::mt19937_64 rng(2);
  for (int i = 0; i < 5; ++i) {
    writer.insert(testing::random_record(rng, t.id, i));
    EXPECT_EQ(reader.counts(t.id).trials, i + 1);
  }
  // Two writers on one file take turns.
  auto writer2 = Database::open(path, OpenMode::read_write_create);
  writer2.insert(testing::random_record(rng, t.id, 5));
  EXPECT_EQ(writer.counts(t.id).trials, 6);
}

}  // namespace
}  // namespace attune
