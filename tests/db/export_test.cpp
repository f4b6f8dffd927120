// export_jsonl: one JSON object per record, each line parses back to what was inserted.
#include <sstream>

#include "db_test_util.hpp"

namespace attune {
namespace {

ATTUNE_ON_BOTH_BACKENDS(DbExport);

using nlohmann::json;

TEST_P(DbExport, LinesParseBackToTheRecords) {
  auto db = Database::open(dir.file("attune.db"));
  std::mt19937_64 rng(42);
  std::vector<TaskInfo> tasks = {db.get_or_create_task("gemm", testing::kGemmSpec, "x86"),
                                 db.get_or_create_task("conv \"q\"", "spec\nline 2", "cuda")};
  std::vector<Record> want;
  for (int i = 0; i < 40; ++i) {
    Record r = testing::random_record(rng, tasks[i % 2].id, i);
    r.id = db.insert(r);
    want.push_back(r);
  }
  std::ostringstream out;
  db.export_jsonl(out);

  std::istringstream in(out.str());
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    ASSERT_LT(n, want.size());
    SCOPED_TRACE(n);
    const Record& r = want[n];
    const TaskInfo& t = tasks[n % 2];
    json j = json::parse(line);
    EXPECT_EQ(j.at("id").get<std::int64_t>(), r.id);
    EXPECT_EQ(j.at("task").at("id").get<std::int64_t>(), t.id);
    EXPECT_EQ(j.at("task").at("name"), t.name);
    EXPECT_EQ(j.at("task").at("spec"), t.spec);
    EXPECT_EQ(j.at("task").at("target"), t.target);
    EXPECT_EQ(j.at("task").at("hash"), t.hash);
    EXPECT_EQ(j.at("trace"), json::parse(r.trace));
    EXPECT_EQ(j.at("trace_hash"), r.trace_hash);
    EXPECT_EQ(j.at("status"), std::string(status_name(r.status)));
    EXPECT_EQ(j.at("error"), r.error);
    EXPECT_EQ(j.at("times_s").get<std::vector<double>>(), r.times_s);
    EXPECT_EQ(j.at("median_s").get<double>(), r.median_s);
    EXPECT_EQ(j.at("max_rel_error").get<double>(), r.max_rel_error);
    EXPECT_EQ(j.at("compile_s").get<double>(), r.compile_s);
    EXPECT_EQ(j.at("features"), r.features);
    EXPECT_EQ(j.at("hidden_features"), r.hidden_features);
    EXPECT_EQ(j.at("compiler"), r.compiler);
    EXPECT_EQ(j.at("flags").get<std::vector<std::string>>(), r.flags);
    EXPECT_EQ(j.at("strategy"), r.strategy);
    EXPECT_EQ(j.at("seed").get<std::uint64_t>(), r.seed);
    EXPECT_EQ(j.at("trial").get<std::int64_t>(), r.trial);
    EXPECT_EQ(j.at("created_at").get<std::string>().size(), 24u);
    ++n;
  }
  EXPECT_EQ(n, want.size());
}

TEST_P(DbExport, EmptyDatabaseWritesNothingAndWorksReadOnly) {
  std::string path = dir.file("attune.db");
  Database::open(path).get_or_create_task("t", "spec", "x86");
  auto db = Database::open(path, OpenMode::read_only);
  std::ostringstream out;
  db.export_jsonl(out);
  EXPECT_EQ(out.str(), "");
}

TEST_P(DbExport, NonFiniteNumbersBecomeNull) {
  auto db = Database::open(dir.file("attune.db"));
  auto t = db.get_or_create_task("t", "spec", "x86");
  Record r;
  r.task_id = t.id;
  r.trace = "[]";
  r.status = Status::wrong_result;
  r.max_rel_error = std::numeric_limits<double>::infinity();
  r.times_s = {std::numeric_limits<double>::quiet_NaN(), 1.0};
  db.insert(r);
  std::ostringstream out;
  db.export_jsonl(out);
  json j = json::parse(out.str());
  EXPECT_TRUE(j.at("max_rel_error").is_null());
  EXPECT_TRUE(j.at("times_s")[0].is_null());
  EXPECT_EQ(j.at("times_s")[1], 1.0);
}

}  // namespace
}  // namespace attune
