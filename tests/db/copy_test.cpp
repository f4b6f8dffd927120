// copy_database() (`attune db copy`): SQLite to PostgreSQL and back, every field kept, and a
// second copy writes nothing twice.
#include <limits>
#include <sstream>

#include "db_test_util.hpp"

namespace attune {
namespace {

using testing::PgServer;
using testing::ScratchDir;

// Two tasks with records (non-finite numbers among them) and three cost models.
void fill(Database& db) {
  std::mt19937_64 rng(77);
  for (const char* target : {"x86", "vta"}) {
    const std::int64_t task = db.get_or_create_task(std::string("gemm_") + target, testing::kGemmSpec, target).id;
    for (int i = 0; i < 12; ++i) {
      Record r = testing::random_record(rng, task, i);
      if (i == 1) r.max_rel_error = std::numeric_limits<double>::quiet_NaN();
      if (i == 2) r.compile_s = std::numeric_limits<double>::infinity();
      db.insert(r);
    }
  }
  static constexpr char kBytes[] = "\0\1\2 model bytes \xff";  // NULs and a high byte
  db.save_model("x86", "V", std::string(kBytes, sizeof kBytes - 1));
  db.save_model("x86", "P", "perf");
  db.save_model("x86", "V", "a later validity model");
}

std::string exported(const Database& db) {
  std::ostringstream out;
  db.export_jsonl(out);
  return out.str();
}

void expect_same_models(const Database& a, const Database& b) {
  const auto ma = a.models(), mb = b.models();
  ASSERT_EQ(ma.size(), mb.size());
  for (std::size_t i = 0; i < ma.size(); ++i) {
    EXPECT_EQ(ma[i].target, mb[i].target);
    EXPECT_EQ(ma[i].kind, mb[i].kind);
    EXPECT_EQ(ma[i].blob, mb[i].blob);
  }
  EXPECT_EQ(b.latest_model("x86", "V")->blob, "a later validity model");
}

void copy_and_check(const std::string& from, const std::string& to) {
  auto src = Database::open(from);
  fill(src);
  auto dst = Database::open(to);
  const CopySummary first = copy_database(src, dst);
  EXPECT_EQ(first.tasks, 2);
  EXPECT_EQ(first.records, 24);
  EXPECT_EQ(first.records_present, 0);
  EXPECT_EQ(first.models, 3);
  // Into an empty database ids come out alike too: the exports are byte for byte the same.
  EXPECT_EQ(exported(dst), exported(src));
  expect_same_models(src, dst);

  const CopySummary again = copy_database(src, dst);
  EXPECT_EQ(again.records, 0);
  EXPECT_EQ(again.records_present, 24);
  EXPECT_EQ(again.models, 0);
  EXPECT_EQ(again.models_present, 3);
  EXPECT_EQ(exported(dst), exported(src));
}

TEST(DbCopyPostgres, FromSqliteToPostgres) {
  ScratchDir dir;
  copy_and_check(dir.file("a.db"), PgServer::shared().new_database());
}

TEST(DbCopyPostgres, FromPostgresToSqlite) {
  ScratchDir dir;
  copy_and_check(PgServer::shared().new_database(), dir.file("b.db"));
}

}  // namespace
}  // namespace attune
