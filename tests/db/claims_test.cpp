// Claims: concurrent tuners of one task share its budget through the database. Two Database
// handles on one file (as two processes have) and threads that claim and record at once: one
// budget, no trace measured twice, no trial number given twice; claims of a dead run lapse;
// a write waits out another connection's long lock; and a database of the schema before
// claims is migrated when opened for writing, and read as it is when opened read-only.
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <future>
#include <set>
#include <thread>

#include "db_test_util.hpp"
#include "ir/error.hpp"

namespace attune {
namespace {

ATTUNE_ON_BOTH_BACKENDS(DbClaims);

using testing::raw_sql;
using testing::ScratchDir;
using Outcome = Claim::Outcome;

Record record_of(std::int64_t task_id, const std::string& trace_hash, std::int64_t trial) {
  std::mt19937_64 rng(std::hash<std::string>{}(trace_hash));
  Record r = testing::random_record(rng, task_id, trial);
  r.trace_hash = trace_hash;
  return r;
}

TEST_P(DbClaims, ATraceInFlightIsRefusedToAnotherRunAndEndsWithItsRecord) {
  auto a = Database::open(dir.file("t.db")), b = Database::open(dir.file("t.db"));
  const std::int64_t task = a.get_or_create_task("t", "spec", "x86").id;
  const std::string run_a = new_claim_owner(), run_b = new_claim_owner();
  ASSERT_NE(run_a, run_b);

  const Claim first = a.claim(task, "h1", run_a, 0);
  EXPECT_EQ(first.outcome, Outcome::granted);
  EXPECT_EQ(first.trial, 0);
  EXPECT_EQ(b.claim(task, "h1", run_b, 0).outcome, Outcome::in_flight);
  EXPECT_EQ(a.claim(task, "h1", run_a, 0).trial, 0);  // the same run asking again: the same claim
  const Claim second = b.claim(task, "h2", run_b, 0);
  EXPECT_EQ(second.outcome, Outcome::granted);
  EXPECT_EQ(second.trial, 1);
  EXPECT_EQ(a.claims(task), 2);

  a.insert(record_of(task, "h1", first.trial));
  EXPECT_EQ(a.claims(task), 1);
  EXPECT_EQ(b.claim(task, "h1", run_b, 0).outcome, Outcome::measured);
  // A released claim is anyone's again.
  b.release_claim(task, "h2", run_b);
  EXPECT_EQ(a.claim(task, "h2", run_a, 0).outcome, Outcome::granted);
  a.release_claims(run_a);
  EXPECT_EQ(a.claims(task), 0);
}

TEST_P(DbClaims, RecordsAndClaimsTogetherMeetTheBudget) {
  auto a = Database::open(dir.file("t.db")), b = Database::open(dir.file("t.db"));
  const std::int64_t task = a.get_or_create_task("t", "spec", "x86").id;
  const std::string run_a = new_claim_owner(), run_b = new_claim_owner();
  a.insert(record_of(task, "old", 0));  // an earlier run's trial counts
  EXPECT_TRUE(a.claim(task, "h1", run_a, 3).granted());
  EXPECT_TRUE(b.claim(task, "h2", run_b, 3).granted());
  EXPECT_EQ(b.claim(task, "h3", run_b, 3).outcome, Outcome::budget_spent);
  b.release_claim(task, "h2", run_b);
  EXPECT_TRUE(b.claim(task, "h3", run_b, 3).granted());
  // Confirmations re-measure counted trials: they neither count nor need a claim, and are
  // numbered after everything else by insert().
  Record confirm = record_of(task, "old", kNextTrial);
  confirm.strategy = kConfirmStrategy;
  a.insert(confirm);
  EXPECT_EQ(a.records(task).back().trial, 3);  // after trial 0 and the claims' 1 and 2
  EXPECT_EQ(a.claim(task, "h4", run_a, 3).outcome, Outcome::budget_spent);
}

TEST_P(DbClaims, ConcurrentRunsSpendOneBudgetAndNumberEachTrialOnce) {
  const std::string path = dir.file("t.db");
  const std::int64_t task = Database::open(path).get_or_create_task("t", "spec", "x86").id;
  constexpr int kRuns = 4, kTraces = 40, kBudget = 25;
  std::vector<std::thread> runs;
  for (int r = 0; r < kRuns; ++r)
    runs.emplace_back([&, r] {
      auto db = Database::open(path);
      const std::string owner = new_claim_owner();
      for (int i = 0; i < kTraces; ++i) {  // each run in its own order
        const std::string hash = "trace" + std::to_string((i * (2 * r + 1)) % kTraces);
        const Claim c = db.claim(task, hash, owner, kBudget);
        if (c.outcome == Outcome::budget_spent) break;
        if (c.granted()) db.insert(record_of(task, hash, c.trial));
      }
    });
  for (auto& t : runs) t.join();
  const auto db = Database::open(path, OpenMode::read_only);
  const std::vector<Record> all = db.records(task);
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kBudget));
  std::set<std::string> traces;
  std::set<std::int64_t> trials;
  for (const auto& r : all) {
    traces.insert(r.trace_hash);
    trials.insert(r.trial);
  }
  EXPECT_EQ(traces.size(), all.size());  // no trace measured twice
  EXPECT_EQ(trials.size(), all.size());  // no trial number given twice
  EXPECT_EQ(*trials.rbegin(), kBudget - 1);
  EXPECT_EQ(Database::open(path).claims(task), 0);
}

TEST_P(DbClaims, TheClaimsOfADeadRunLapse) {
  auto db = Database::open(dir.file("t.db"));
  const std::int64_t task = db.get_or_create_task("t", "spec", "x86").id;
  // A run in a process that has ended (as one killed by SIGKILL): its claim names its pid.
  const pid_t pid = ::fork();
  if (pid == 0) {
    auto child = Database::open(dir.file("t.db"));
    ::_exit(child.claim(task, "h1", new_claim_owner(), 0).granted() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(db.claims(task), 1);
  const Claim c = db.claim(task, "h1", new_claim_owner(), 0);
  EXPECT_EQ(c.outcome, Outcome::granted);
  EXPECT_EQ(c.trial, 0);  // the dead run's number is free again
  EXPECT_EQ(db.claims(task), 1);
}

TEST(DbClaimsSqlite, AWriteWaitsOutALongLockInsteadOfDroppingTheRecord) {
  ScratchDir dir;
  const std::string path = dir.file("t.db");
  auto db = Database::open(path);
  const std::int64_t task = db.get_or_create_task("t", "spec", "x86").id;
  // Another process's connection holds the write lock for longer than SQLite's usual few
  // seconds (11 s: attune used to give up after 10).
  std::promise<void> locked;
  std::thread holder([&] {
    sqlite3* raw = nullptr;
    sqlite3_open(path.c_str(), &raw);
    sqlite3_exec(raw, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    locked.set_value();
    std::this_thread::sleep_for(std::chrono::seconds(11));
    sqlite3_exec(raw, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(raw);
  });
  locked.get_future().wait();
  EXPECT_NO_THROW(db.insert(record_of(task, "h1", 0)));
  holder.join();
  EXPECT_EQ(db.records(task).size(), 1u);
}

TEST(DbClaimsSqlite, TheSchemaBeforeClaimsIsMigratedForWritingAndReadAsItIs) {
  ScratchDir dir;
  const std::string path = dir.file("v1.db");
  std::int64_t task = 0;
  {
    auto db = Database::open(path);
    task = db.get_or_create_task("t", "spec", "x86").id;
    db.insert(record_of(task, "h1", 0));
  }
  // Version 1 is this version without the claims (2), jobs (3) and runs (4) tables.
  raw_sql(path, "DROP TABLE claims; DROP TABLE jobs; DROP TABLE runs; UPDATE meta SET value = '1' WHERE key = 'schema_version'");
  const std::string bytes = testing::read_bytes(path);
  EXPECT_EQ(Database::open(path, OpenMode::read_only).records(task).size(), 1u);
  EXPECT_EQ(testing::read_bytes(path), bytes);  // nothing written
  auto rw = Database::open(path);
  EXPECT_EQ(rw.records(task).size(), 1u);
  const Claim c = rw.claim(task, "h2", new_claim_owner(), 0);
  EXPECT_EQ(c.outcome, Outcome::granted);
  EXPECT_EQ(c.trial, 1);
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(raw, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))), std::to_string(kDbSchemaVersion));
  sqlite3_finalize(st);
  sqlite3_close(raw);
}

}  // namespace
}  // namespace attune
