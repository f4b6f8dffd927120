// Tasks and records: round trips of every field, resume look-ups, best and history.
#include <limits>
#include <map>

#include "db_test_util.hpp"
#include "ir/error.hpp"

namespace attune {
namespace {

ATTUNE_ON_BOTH_BACKENDS(DbTasks);
ATTUNE_ON_BOTH_BACKENDS(DbRecords);
ATTUNE_ON_BOTH_BACKENDS(DbModels);

using testing::ScratchDir;

TEST_P(DbTasks, GetOrCreateIsKeyedBySpecAndTarget) {
  auto db = Database::open(dir.file("attune.db"));
  TaskInfo a = db.get_or_create_task("gemm_4", testing::kGemmSpec, "x86_avx2");
  EXPECT_GT(a.id, 0);
  EXPECT_EQ(a.name, "gemm_4");
  EXPECT_EQ(a.spec, testing::kGemmSpec);
  EXPECT_EQ(a.target, "x86_avx2");
  EXPECT_EQ(a.hash, task_hash(testing::kGemmSpec, "x86_avx2"));
  EXPECT_EQ(a.hash.size(), 64u);
  EXPECT_FALSE(a.created_at.empty());

  // Same computation under another name: the same task, which keeps its first name.
  TaskInfo again = db.get_or_create_task("renamed", testing::kGemmSpec, "x86_avx2");
  EXPECT_EQ(again.id, a.id);
  EXPECT_EQ(again.name, "gemm_4");

  TaskInfo b = db.get_or_create_task("gemm_4", testing::kGemmSpec, "cuda_sm90");
  EXPECT_NE(b.id, a.id);

  auto found = db.find_task(testing::kGemmSpec, "cuda_sm90");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, b.id);
  EXPECT_FALSE(db.find_task("other spec", "x86_avx2"));
  EXPECT_EQ(db.task(a.id)->hash, a.hash);
  EXPECT_FALSE(db.task(12345));

  auto all = db.tasks();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, a.id);
  EXPECT_EQ(all[1].id, b.id);
}

TEST_P(DbRecords, RoundTripOfEveryField) {
  std::string path = dir.file("attune.db");
  std::mt19937_64 rng(20250131);
  std::vector<Record> want;
  std::int64_t task_id;
  {
    auto db = Database::open(path);
    task_id = db.get_or_create_task("t", "spec", "x86").id;
    for (int i = 0; i < 60; ++i) {
      Record r = testing::random_record(rng, task_id, i);
      if (i == 0) r.created_at = "2024-02-29T23:59:59.999Z";  // a caller's own timestamp is kept
      if (i == 1) r.max_rel_error = std::numeric_limits<double>::quiet_NaN();
      if (i == 2) r.max_rel_error = std::numeric_limits<double>::infinity();
      r.id = db.insert(r);
      want.push_back(r);
    }
  }
  // Reopened read-only: what comes back is what went in.
  auto db = Database::open(path, OpenMode::read_only);
  auto got = db.records(task_id);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(got[i].id, want[i].id);
    testing::expect_same_record(want[i], got[i]);
    auto one = db.record(want[i].id);
    ASSERT_TRUE(one);
    testing::expect_same_record(want[i], *one);
    // ISO-8601 UTC with milliseconds.
    ASSERT_EQ(got[i].created_at.size(), 24u) << got[i].created_at;
    EXPECT_EQ(got[i].created_at[10], 'T');
    EXPECT_EQ(got[i].created_at.back(), 'Z');
  }
  EXPECT_EQ(got[0].created_at, "2024-02-29T23:59:59.999Z");
  EXPECT_FALSE(db.record(999999));
}

TEST(DbRecordMeasurement, ConvertsBothWays) {
  Measurement m;
  m.status = Status::wrong_result;
  m.error = "mismatch at 3";
  m.times_s = {1, 2, 3};
  m.median_s = 2;
  m.max_rel_error = 0.5;
  m.compile_s = 0.25;
  Record r;
  r.set_measurement(m);
  Measurement back = r.measurement();
  EXPECT_EQ(back.status, m.status);
  EXPECT_EQ(back.error, m.error);
  EXPECT_EQ(back.times_s, m.times_s);
  EXPECT_EQ(back.median_s, m.median_s);
  EXPECT_EQ(back.max_rel_error, m.max_rel_error);
  EXPECT_EQ(back.compile_s, m.compile_s);
}

TEST_P(DbRecords, InsertRefusesBadInput) {
  std::string path = dir.file("attune.db");
  auto db = Database::open(path);
  auto t = db.get_or_create_task("t", "spec", "x86");
  std::mt19937_64 rng(4);
  Record r = testing::random_record(rng, t.id, 0);
  r.trace = "[{\"split\": ";
  try {
    db.insert(r);
    ADD_FAILURE() << "accepted a trace that is not JSON";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": the trace of a record for task " + std::to_string(t.id) + " is not valid JSON");
  }
  r = testing::random_record(rng, t.id + 100, 0);
  try {
    db.insert(r);
    ADD_FAILURE() << "accepted an unknown task id";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": no task with id " + std::to_string(t.id + 100));
  }
  EXPECT_EQ(db.counts(t.id).trials, 0);
}

TEST_P(DbRecords, ResumeKnowsTheTracesAlreadyTried) {
  std::string path = dir.file("attune.db");
  std::mt19937_64 rng(8);
  std::set<std::string> hashes_a;
  std::int64_t a, b;
  {
    auto db = Database::open(path);
    a = db.get_or_create_task("a", "spec a", "x86").id;
    b = db.get_or_create_task("b", "spec b", "x86").id;
    for (int i = 0; i < 30; ++i) {
      Record r = testing::random_record(rng, i % 3 == 0 ? b : a, i);
      if (i == 7) r.trace_hash = "repeat";  // the same trace measured twice
      if (i == 8) r.trace_hash = "repeat";
      db.insert(r);
      if (r.task_id == a) hashes_a.insert(r.trace_hash);
    }
  }
  auto db = Database::open(path);  // a resumed run reopens the same file
  EXPECT_EQ(db.known_trace_hashes(a), hashes_a);
  for (const auto& h : hashes_a) {
    EXPECT_TRUE(db.has_trace(a, h));
    EXPECT_FALSE(db.has_trace(b, h));
  }
  EXPECT_FALSE(db.has_trace(a, content_hash("never tried")));
  EXPECT_TRUE(db.known_trace_hashes(999).empty());

  TaskCounts c = db.counts(a);
  EXPECT_EQ(c.trials, 20);
  std::int64_t ok = 0, max_trial = -1;
  for (const Record& r : db.records(a)) {
    ok += r.ok();
    max_trial = std::max(max_trial, r.trial);
  }
  EXPECT_EQ(c.valid, ok);
  EXPECT_EQ(c.next_trial, max_trial + 1);
  TaskCounts none = db.counts(999);
  EXPECT_EQ(none.trials, 0);
  EXPECT_EQ(none.valid, 0);
  EXPECT_EQ(none.next_trial, 0);
}

Record timed(std::int64_t task, Status s, double median) {
  Record r;
  r.task_id = task;
  r.trace = "[]";
  r.status = s;
  r.median_s = median;
  return r;
}

TEST_P(DbRecords, BestAndHistoryOnAKnownSequence) {
  auto db = Database::open(dir.file("attune.db"));
  auto t = db.get_or_create_task("t", "spec", "x86").id;
  auto other = db.get_or_create_task("o", "spec o", "x86").id;
  EXPECT_FALSE(db.best(t));
  EXPECT_TRUE(db.history(t).empty());

  // A wrong result faster than everything never counts; ties keep the earlier record.
  std::vector<std::pair<Status, double>> seq = {{Status::compile_error, 0},  {Status::ok, 3.0}, {Status::ok, 5.0},
                                                {Status::wrong_result, 0.5}, {Status::ok, 2.0}, {Status::ok, 2.0},
                                                {Status::timeout, 0},        {Status::ok, 2.5}};
  std::vector<std::int64_t> ids;
  for (auto [s, m] : seq) ids.push_back(db.insert(timed(t, s, m)));
  db.insert(timed(other, Status::ok, 0.1));

  auto best = db.best(t);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->id, ids[4]);
  EXPECT_EQ(best->median_s, 2.0);

  auto h = db.history(t);
  ASSERT_EQ(h.size(), seq.size());
  std::vector<std::optional<double>> want_best = {std::nullopt, 3.0, 3.0, 3.0, 2.0, 2.0, 2.0, 2.0};
  std::vector<std::int64_t> want_id = {0, ids[1], ids[1], ids[1], ids[4], ids[4], ids[4], ids[4]};
  for (std::size_t i = 0; i < h.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(h[i].record_id, ids[i]);
    EXPECT_EQ(h[i].status, seq[i].first);
    EXPECT_EQ(h[i].median_s, seq[i].second);
    EXPECT_EQ(h[i].best_s, want_best[i]);
    EXPECT_EQ(h[i].best_record_id, want_id[i]);
  }
}

// best(task, keep): only the kept records compete, and only their confirmations make the rule
// "confirmed traces only" (records measured at another thread count, with confirmations of their
// own, neither win nor exclude the kept ones).
TEST_P(DbRecords, BestAmongKeptRecordsCountsOnlyTheirConfirmations) {
  auto db = Database::open(dir.file("attune.db"));
  const auto t = db.get_or_create_task("t", "spec", "x86").id;
  auto add = [&](const std::string& hash, double median, int threads, bool confirmation) {
    Record r = timed(t, Status::ok, median);
    r.trace_hash = hash;
    r.features = {{"threads", threads}};
    if (confirmation) r.strategy = kConfirmStrategy;
    return db.insert(r);
  };
  add("a", 1.0, 1, false);
  add("b", 0.5, 2, false);
  const auto b_confirmed = add("b", 0.6, 2, true);
  const auto d = add("d", 0.8, 1, false);
  auto at = [](int n) { return [n](const Record& r) { return r.features.value("threads", 0) == n; }; };
  ASSERT_TRUE(db.best(t));
  EXPECT_EQ(db.best(t)->id, b_confirmed);  // the upper median of b's two measurements
  ASSERT_TRUE(db.best(t, at(1)));
  EXPECT_EQ(db.best(t, at(1))->id, d);
  EXPECT_EQ(db.best(t, at(2))->id, b_confirmed);
  EXPECT_FALSE(db.best(t, at(3)));
}

TEST_P(DbRecords, BestAndHistoryMatchABruteForceOnRandomData) {
  auto db = Database::open(dir.file("attune.db"));
  std::mt19937_64 rng(99);
  std::vector<std::int64_t> tasks;
  for (int i = 0; i < 3; ++i) tasks.push_back(db.get_or_create_task("t", "spec" + std::to_string(i), "x86").id);
  std::map<std::int64_t, std::vector<Record>> by_task;
  for (int i = 0; i < 150; ++i) {
    std::int64_t t = tasks[rng() % tasks.size()];
    Record r = testing::random_record(rng, t, i);
    r.median_s = static_cast<double>(rng() % 20);  // many ties
    r.id = db.insert(r);
    by_task[t].push_back(r);
  }
  for (std::int64_t t : tasks) {
    const Record* best = nullptr;
    auto h = db.history(t);
    ASSERT_EQ(h.size(), by_task[t].size());
    for (std::size_t i = 0; i < h.size(); ++i) {
      const Record& r = by_task[t][i];
      if (r.ok() && (!best || r.median_s < best->median_s)) best = &r;
      EXPECT_EQ(h[i].record_id, r.id);
      EXPECT_EQ(h[i].trial, r.trial);
      EXPECT_EQ(h[i].best_s.has_value(), best != nullptr);
      EXPECT_EQ(h[i].best_record_id, best ? best->id : 0);
    }
    auto got = db.best(t);
    ASSERT_EQ(got.has_value(), best != nullptr);
    if (best) {
      EXPECT_EQ(got->id, best->id);
      testing::expect_same_record(*best, *got);
    }
  }
}

TEST_P(DbModels, BlobsRoundTripAndTheLatestWins) {
  std::string path = dir.file("attune.db");
  std::mt19937_64 rng(6);
  std::string blob1 = testing::random_bytes(rng, 10000);  // with NUL bytes
  std::string blob2 = testing::random_bytes(rng, 777);
  {
    auto db = Database::open(path);
    EXPECT_FALSE(db.latest_model("x86", "V"));
    db.save_model("x86", "V", blob1);
    db.save_model("x86", "P", "");
    auto id = db.save_model("x86", "V", blob2);
    auto m = db.latest_model("x86", "V");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->id, id);
  }
  auto db = Database::open(path, OpenMode::read_only);
  auto v = db.latest_model("x86", "V");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->blob, blob2);
  EXPECT_EQ(v->target, "x86");
  EXPECT_EQ(v->kind, "V");
  auto p = db.latest_model("x86", "P");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->blob, "");
  EXPECT_FALSE(db.latest_model("cuda", "V"));
}

}  // namespace
}  // namespace attune
