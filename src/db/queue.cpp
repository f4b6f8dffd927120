// Database's job queue (db.hpp): distributed measurement through the shared database.
//
// Leases are kept in milliseconds by the database's own clock (kNowMs), never a worker's, so
// machines whose clocks disagree still agree on when a lease has expired. A job is taken by
// one UPDATE of the oldest eligible row; on PostgreSQL with FOR UPDATE SKIP LOCKED, so
// concurrent workers each take a different job at once instead of queueing on one row's lock
// (SQLite has one writer at a time: BEGIN IMMEDIATE serializes them instead).
#include <string>

#include "db/impl.hpp"
#include "ir/error.hpp"

namespace attune {

using db::Statement;

namespace {

// Now, in milliseconds since 1970, by the database's clock: the one SQL that differs.
const char* now_ms(db::Connection& c) {
  return c.backend() == db::Backend::postgres ? "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
                                              : "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";
}

}  // namespace

std::int64_t Database::enqueue(std::int64_t task_id, const std::string& trace_hash, const std::string& device_key,
                               const std::string& request, const std::string& owner) {
  impl_->require_writable("enqueue a job");
  db::Connection& c = impl_->c();
  db::Transaction tx(c, /*exclusive=*/false);
  {
    // The claim row stays locked until commit: no claim() can drop it in between.
    const std::string sql = std::string("SELECT owner FROM claims WHERE task_id = ?1 AND trace_hash = ?2") +
                            (c.backend() == db::Backend::postgres ? " FOR UPDATE" : "");
    Statement st(c, sql.c_str());
    st.bind(1, task_id).bind(2, std::string_view(trace_hash));
    if (!st.step() || st.text(0) != owner)
      throw Error(path() + ": cannot enqueue trace " + trace_hash + " of task " + std::to_string(task_id) +
                  ": it is not claimed by this run");
  }
  Statement st(c,
               "INSERT INTO jobs(task_id, trace_hash, device_key, request, state, lease_owner, lease_until, "
               "attempts, record_id, created_at) VALUES (?1, ?2, ?3, ?4, 'queued', '', 0, 0, NULL, ?5) RETURNING id");
  st.bind(1, task_id).bind(2, std::string_view(trace_hash)).bind(3, std::string_view(device_key));
  st.bind(4, std::string_view(request)).bind(5, std::string_view(utc_now_iso8601()));
  ATTUNE_CHECK(st.step(), "INSERT ... RETURNING returns the row");
  const std::int64_t id = st.int64(0);
  st.run();
  Statement pass(c, "UPDATE claims SET owner = ?3 WHERE task_id = ?1 AND trace_hash = ?2");
  pass.bind(1, task_id).bind(2, std::string_view(trace_hash)).bind(3, std::string_view("job/" + std::to_string(id)));
  pass.run();
  tx.commit();
  return id;
}

std::optional<QueueJob> Database::claim_job(const std::vector<std::string>& device_keys, const std::string& worker,
                                            std::int64_t lease_ms) {
  impl_->require_writable("take a job");
  if (device_keys.empty()) return std::nullopt;
  db::Connection& c = impl_->c();
  const std::string now = now_ms(c);
  // Placeholders only: the keys are bound, never spliced into the SQL.
  std::string keys;
  for (std::size_t i = 0; i < device_keys.size(); ++i) keys += (i ? ", ?" : "?") + std::to_string(i + 3);
  const std::string sql = "UPDATE jobs SET state = 'claimed', lease_owner = ?1, lease_until = " + now +
                          " + ?2, attempts = attempts + 1 WHERE id = (SELECT id FROM jobs WHERE device_key IN (" +
                          keys + ") AND (state = 'queued' OR (state = 'claimed' AND lease_until < " + now +
                          ")) ORDER BY id LIMIT 1" +
                          (c.backend() == db::Backend::postgres ? " FOR UPDATE SKIP LOCKED" : "") +
                          ") RETURNING id, task_id, trace_hash, device_key, request, attempts";
  db::Transaction tx(c, /*exclusive=*/false);
  Statement st(c, sql.c_str());
  st.bind(1, std::string_view(worker)).bind(2, lease_ms);
  for (std::size_t i = 0; i < device_keys.size(); ++i)
    st.bind(static_cast<int>(i + 3), std::string_view(device_keys[i]));
  std::optional<QueueJob> out;
  if (st.step()) out = QueueJob{st.int64(0), st.int64(1), st.text(2), st.text(3), st.text(4), st.int64(5)};
  st.run();
  tx.commit();
  return out;
}

bool Database::renew_lease(std::int64_t job_id, const std::string& worker, std::int64_t lease_ms) {
  impl_->require_writable("renew a lease");
  db::Connection& c = impl_->c();
  const std::string sql = std::string("UPDATE jobs SET lease_until = ") + now_ms(c) +
                          " + ?3 WHERE id = ?1 AND lease_owner = ?2 AND state = 'claimed' RETURNING id";
  Statement st(c, sql.c_str());
  st.bind(1, job_id).bind(2, std::string_view(worker)).bind(3, lease_ms);
  const bool held = st.step();
  st.run();
  return held;
}

std::optional<std::int64_t> Database::complete_job(std::int64_t job_id, const std::string& worker, const Record& r) {
  impl_->check_insertable(r);
  db::Connection& c = impl_->c();
  // Exclusive, as insert(): a record asking for a trial number is numbered under the lock.
  db::Transaction tx(c);
  {
    // Still ours? The row lock (PostgreSQL) or the write lock (SQLite) holds until commit, so
    // no other worker can take the job between this check and its end.
    const std::string sql = std::string("SELECT 1 FROM jobs WHERE id = ?1 AND lease_owner = ?2 AND state = 'claimed'") +
                            (c.backend() == db::Backend::postgres ? " FOR UPDATE" : "");
    Statement st(c, sql.c_str());
    st.bind(1, job_id).bind(2, std::string_view(worker));
    if (!st.step()) return std::nullopt;  // the transaction rolls back
  }
  const std::int64_t id = db::insert_record(c, r);
  Statement done(c, "UPDATE jobs SET state = 'done', record_id = ?2 WHERE id = ?1");
  done.bind(1, job_id).bind(2, id).run();
  tx.commit();
  return id;
}

void Database::release_job(std::int64_t job_id, const std::string& worker) {
  impl_->require_writable("release a job");
  Statement st(impl_->c(),
               "UPDATE jobs SET state = 'queued', lease_owner = '', lease_until = 0 "
               "WHERE id = ?1 AND lease_owner = ?2 AND state = 'claimed'");
  st.bind(1, job_id).bind(2, std::string_view(worker)).run();
}

std::optional<std::int64_t> Database::job_record(std::int64_t job_id) const {
  Statement st(impl_->c(), "SELECT record_id FROM jobs WHERE id = ?1 AND state = 'done'");
  st.bind(1, job_id);
  if (!st.step() || st.is_null(0)) return std::nullopt;
  return st.int64(0);
}

QueueCounts Database::queue_counts(std::int64_t task_id) const {
  Statement st(impl_->c(),
               "SELECT COALESCE(SUM(CASE WHEN state = 'queued' THEN 1 ELSE 0 END), 0), "
               "COALESCE(SUM(CASE WHEN state = 'claimed' THEN 1 ELSE 0 END), 0), "
               "COALESCE(SUM(CASE WHEN state = 'done' THEN 1 ELSE 0 END), 0) FROM jobs "
               "WHERE ?1 = 0 OR task_id = ?1");
  st.bind(1, task_id);
  ATTUNE_CHECK(st.step(), "an aggregate query returns one row");
  return QueueCounts{st.int64(0), st.int64(1), st.int64(2)};
}

}  // namespace attune
