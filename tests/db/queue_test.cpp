// The job queue on both backends: the claim passes to the job, workers take jobs for their
// device keys only, a lease that expired passes the job to another worker and the first can
// no longer end it, and concurrent workers end every job with exactly one record.
#include <chrono>
#include <set>
#include <thread>

#include "db_test_util.hpp"
#include "ir/error.hpp"

namespace attune {
namespace {

ATTUNE_ON_BOTH_BACKENDS(DbQueue);

using Outcome = Claim::Outcome;

Record record_for(const QueueJob& j, std::int64_t trial) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(j.id));
  Record r = testing::random_record(rng, j.task_id, trial);
  r.trace_hash = j.trace_hash;
  return r;
}

// Enqueues trace `hash` as the search side does: claim, then enqueue.
std::int64_t enqueue(Database& db, std::int64_t task, const std::string& hash, const std::string& key,
                     const std::string& owner, std::int64_t* trial = nullptr) {
  const Claim c = db.claim(task, hash, owner, 0);
  EXPECT_TRUE(c.granted());
  if (trial) *trial = c.trial;
  return db.enqueue(task, hash, key, "{\"trial\":" + std::to_string(c.trial) + "}", owner);
}

TEST_P(DbQueue, AJobCarriesItsClaimAndEndsAsOneRecord) {
  auto db = Database::open(dir.file("q.db"));
  const std::int64_t task = db.get_or_create_task("t", "spec", "x86").id;
  const std::string search = new_claim_owner();
  EXPECT_THROW(db.enqueue(task, "h0", "x86", "{}", search), Error);  // not claimed
  std::int64_t trial = -1;
  const std::int64_t id = enqueue(db, task, "h1", "x86", search, &trial);
  // The claim is the job's now: it outlives the search side's own claims.
  db.release_claims(search);
  EXPECT_EQ(db.claims(task), 1);
  EXPECT_EQ(db.claim(task, "h1", new_claim_owner(), 0).outcome, Outcome::in_flight);
  EXPECT_EQ(db.queue_counts(task).queued, 1);

  EXPECT_FALSE(db.claim_job({"vta"}, "w-vta", 60000));  // nobody asked for vta
  const auto job = db.claim_job({"vta", "x86"}, "w1", 60000);
  ASSERT_TRUE(job);
  EXPECT_EQ(job->id, id);
  EXPECT_EQ(job->task_id, task);
  EXPECT_EQ(job->trace_hash, "h1");
  EXPECT_EQ(job->device_key, "x86");
  EXPECT_EQ(job->request, "{\"trial\":" + std::to_string(trial) + "}");
  EXPECT_EQ(job->attempts, 1);
  EXPECT_FALSE(db.claim_job({"x86"}, "w2", 60000));  // taken, lease running
  EXPECT_TRUE(db.renew_lease(id, "w1", 60000));
  EXPECT_FALSE(db.renew_lease(id, "w2", 60000));
  EXPECT_FALSE(db.job_record(id));

  const auto rec = db.complete_job(id, "w1", record_for(*job, trial));
  ASSERT_TRUE(rec);
  EXPECT_EQ(db.job_record(id), rec);
  EXPECT_EQ(db.record(*rec)->trial, trial);
  EXPECT_EQ(db.claims(task), 0);                                     // the record ended the claim
  EXPECT_FALSE(db.complete_job(id, "w1", record_for(*job, trial)));  // done once
  EXPECT_EQ(db.records(task).size(), 1u);
  const QueueCounts q = db.queue_counts();
  EXPECT_EQ(q.queued + q.claimed, 0);
  EXPECT_EQ(q.done, 1);
}

TEST_P(DbQueue, AnExpiredLeasePassesTheJobOnAndTheFirstWorkerCannotEndIt) {
  auto db = Database::open(dir.file("q.db"));
  const std::int64_t task = db.get_or_create_task("t", "spec", "x86").id;
  const std::int64_t id = enqueue(db, task, "h1", "x86", new_claim_owner());
  const auto first = db.claim_job({"x86"}, "w1", 0);  // a lease that ends at once
  ASSERT_TRUE(first);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto second = db.claim_job({"x86"}, "w2", 60000);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->id, id);
  EXPECT_EQ(second->attempts, 2);
  EXPECT_FALSE(db.renew_lease(id, "w1", 60000));
  EXPECT_FALSE(db.complete_job(id, "w1", record_for(*first, 0)));  // nothing written
  EXPECT_TRUE(db.records(task).empty());
  EXPECT_TRUE(db.complete_job(id, "w2", record_for(*second, 0)));
  EXPECT_EQ(db.records(task).size(), 1u);
}

TEST_P(DbQueue, AReleasedJobIsQueuedAgain) {
  auto db = Database::open(dir.file("q.db"));
  const std::int64_t task = db.get_or_create_task("t", "spec", "vta").id;
  const std::int64_t id = enqueue(db, task, "h1", "vta", new_claim_owner());
  ASSERT_TRUE(db.claim_job({"vta"}, "w1", 60000));
  db.release_job(id, "w2");  // not w2's: nothing happens
  EXPECT_EQ(db.queue_counts(task).claimed, 1);
  db.release_job(id, "w1");
  EXPECT_EQ(db.queue_counts(task).queued, 1);
  const auto again = db.claim_job({"vta"}, "w2", 60000);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->attempts, 2);
}

TEST_P(DbQueue, ConcurrentWorkersEndEveryJobWithExactlyOneRecord) {
  const std::string path = dir.file("q.db");
  constexpr int kJobs = 30, kWorkers = 3;
  std::int64_t task = 0;
  {
    auto db = Database::open(path);
    task = db.get_or_create_task("t", "spec", "x86").id;
    const std::string search = new_claim_owner();
    for (int i = 0; i < kJobs; ++i) enqueue(db, task, "h" + std::to_string(i), "x86", search);
  }
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w)
    workers.emplace_back([&, w] {
      auto db = Database::open(path);
      const std::string me = "w" + std::to_string(w);
      while (const auto job = db.claim_job({"x86"}, me, 60000)) {
        const nlohmann::json req = nlohmann::json::parse(job->request);
        EXPECT_TRUE(db.complete_job(job->id, me, record_for(*job, req.at("trial").get<std::int64_t>())));
      }
    });
  for (auto& t : workers) t.join();
  auto db = Database::open(path, OpenMode::read_only);
  const auto records = db.records(task);
  EXPECT_EQ(records.size(), static_cast<std::size_t>(kJobs));
  std::set<std::string> traces;
  std::set<std::int64_t> trials;
  for (const auto& r : records) {
    traces.insert(r.trace_hash);
    trials.insert(r.trial);
  }
  EXPECT_EQ(traces.size(), records.size());
  EXPECT_EQ(trials.size(), records.size());
  EXPECT_EQ(db.queue_counts(task).done, kJobs);
  EXPECT_EQ(db.claims(task), 0);
}

}  // namespace
}  // namespace attune
