// The runs table (schema version 4): what started each tuning run, noted for `attune report`.
// A database of version 2 is migrated when opened for writing and read as it is (no runs)
// when opened read-only.
#include "db_test_util.hpp"
#include "ir/error.hpp"

namespace attune {
namespace {

using testing::raw_sql;
using testing::ScratchDir;

TEST(DbRuns, ARunIsNotedWithItsCommandAttuneAndMachine) {
  ScratchDir dir;
  auto db = Database::open(dir.file("r.db"));
  EXPECT_TRUE(db.runs().empty());
  db.add_run({0, "", "attune tune 'gemm:M=8' --db r.db", "0.1.0, commit abc, gcc 12", "CPU X, 2 logical CPUs"});
  db.add_run({0, "2026-01-01T00:00:00.000Z", "attune tune-model m.onnx", "0.1.0", "CPU Y"});
  const auto runs = Database::open(dir.file("r.db"), OpenMode::read_only).runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].command, "attune tune 'gemm:M=8' --db r.db");
  EXPECT_EQ(runs[0].attune, "0.1.0, commit abc, gcc 12");
  EXPECT_EQ(runs[0].machine, "CPU X, 2 logical CPUs");
  EXPECT_EQ(runs[0].started_at.size(), std::string("2025-01-31T12:34:56.789Z").size());  // filled in
  EXPECT_EQ(runs[1].started_at, "2026-01-01T00:00:00.000Z");
  EXPECT_THROW(Database::open(dir.file("r.db"), OpenMode::read_only).add_run({}), Error);
}

TEST(DbRuns, VersionTwoIsReadWithoutRunsAndMigratedForWriting) {
  ScratchDir dir;
  const std::string path = dir.file("v2.db");
  Database::open(path);
  raw_sql(path, "DROP TABLE runs; DROP TABLE jobs; UPDATE meta SET value = '2' WHERE key = 'schema_version'");
  const std::string bytes = testing::read_bytes(path);
  EXPECT_TRUE(Database::open(path, OpenMode::read_only).runs().empty());
  EXPECT_EQ(testing::read_bytes(path), bytes);  // nothing written
  auto rw = Database::open(path);
  rw.add_run({0, "", "attune tune x", "0.1.0", "here"});
  EXPECT_EQ(rw.runs().size(), 1u);
}

}  // namespace
}  // namespace attune
