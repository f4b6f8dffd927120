// db/db.hpp — the tuning database: every attempt, its trace, status, timings and features.
//
// One SQLite file (by default `attune.db`; the CLI chooses it with --db), or a PostgreSQL
// database that many machines share (--db postgresql://USER@HOST/DB; docs/shared-database.md),
// holds
//   tasks    one row per (canonical spec, target); `hash` is content_hash of the pair, unique
//   records  one row per measured candidate, committed the moment it is inserted
//   models   blobs per target: cost models (validity V, performance P / A) and the network
//            picks (kind network-pick/<threads>, network/network_pick.hpp)
//   claims   the traces tuning runs are building and measuring now, with their trial numbers
//   jobs     the queue of distributed measurement: candidates for `attune worker`s (queue.cpp)
//   runs     what started each tuning run: its command line, the attune and the machine
//   meta     schema_version (older versions are migrated when opened for writing)
// Each insert is its own transaction in WAL mode with synchronous=FULL, so a tuning process
// killed at any instant (even SIGKILL) loses no record whose insert had returned. A write that
// meets another process's lock waits for it, backing off, for up to kDbBusyWaitSeconds.
//
// Concurrent tuners of one task share it through claims: each run claims a trace before it
// builds and measures it; claim() refuses a trace that is measured or claimed by another live
// run and a claim beyond the task's budget, and hands out trial numbers, so two runs spend one
// budget, never measure a trace twice and never number two trials alike.
//
// Opening never damages a file it does not understand: a path that is not an SQLite file, or
// an SQLite file with tables but no attune `meta`, raises attune::Error and is left byte for
// byte as it was. Every error names the path. A Database owns one connection; use it from one
// thread at a time (open another Database for another thread or process).
//
// Tests: tests/db/.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/hash.hpp"
#include "ir/measure.hpp"

namespace attune {

inline constexpr int kDbSchemaVersion = 4;
// How long a write waits for another process's lock before it fails: long enough for any
// other attune's transaction (claims and inserts are short), so no measured batch is dropped.
inline constexpr int kDbBusyWaitSeconds = 600;

enum class OpenMode {
  read_write_create,  // create the file and schema when missing
  read_only,          // the file must exist and be an attune database; nothing is written
};

struct TaskInfo {
  std::int64_t id = 0;
  std::string name;    // a label ("gemm_512"); the first name a task was created with
  std::string spec;    // canonical spec text (canonical_spec(op))
  std::string target;  // target name
  std::string hash;    // task_hash(spec, target)
  std::string created_at;
};

// One measured candidate. `id` and, when left empty, `created_at` are filled by insert().
struct Record {
  std::int64_t id = 0;
  std::int64_t task_id = 0;
  std::string trace;       // the schedule trace as JSON text (must parse as JSON)
  std::string trace_hash;  // the caller's hash of the trace; what resume looks up
  Status status = Status::ok;
  std::string error;            // empty when ok
  std::vector<double> times_s;  // every timed repeat, in order
  double median_s = 0;
  double max_rel_error = 0;
  double compile_s = 0;
  nlohmann::json features;         // visible (pre-compile) features; null when none
  nlohmann::json hidden_features;  // read from the compiled artifact; null when none
  std::string compiler;            // e.g. "gcc 12.2.0"
  std::vector<std::string> flags;  // compiler flags
  std::string strategy;            // "random", "evolutionary", ...
  std::uint64_t seed = 0;          // the search seed, so the record can be replayed
  std::int64_t trial = 0;          // the trial number (claim()'s); kNextTrial: insert() numbers it
  std::string created_at;          // ISO-8601 UTC, "2025-01-31T12:34:56.789Z"

  // Copies status, error, timings and rel. error from a runner result, and back.
  void set_measurement(const Measurement& m);
  Measurement measurement() const;
  bool ok() const { return status == Status::ok; }
};

// Which records a query considers (Database::best, measurements_by_trace); empty: all.
using RecordFilter = std::function<bool(const Record&)>;

// Record::trial for insert() to fill in with the task's next trial number, in the insert's own
// transaction (confirmations, which claim nothing).
inline constexpr std::int64_t kNextTrial = -1;

// What claim() answers.
struct Claim {
  enum class Outcome {
    granted,       // the trace is this run's to measure, as trial `trial`
    measured,      // the task already has a record of the trace
    in_flight,     // another live run has claimed it
    budget_spent,  // the task's records and live claims already reach the budget
  };
  Outcome outcome = Outcome::granted;
  std::int64_t trial = -1;  // when granted
  bool granted() const { return outcome == Outcome::granted; }
};

// A tuning run's name in the claims table: this machine, this process (whether it is alive
// decides whether its claims still hold) and a number unique within the process. Two runs in
// one process (two Database handles, two threads) have different names.
std::string new_claim_owner();

// Record::strategy of a re-measurement of a trace already in the database (tune's
// confirmation of its top candidates); features["confirms"] holds the record it re-measures.
inline constexpr const char* kConfirmStrategy = "confirm";

// The ok records of one trace, in insertion order: its own measurement and any confirmations.
struct TraceMeasurements {
  std::vector<Record> ok;
  int confirmations = 0;  // of which strategy kConfirmStrategy
  // The trace's own (first, non-confirmation) record; nullptr when only confirmations are ok.
  const Record* own() const;
};

struct TaskCounts {
  std::int64_t trials = 0;      // records of the task, confirmations not counted
  std::int64_t valid = 0;       // of which status ok
  std::int64_t next_trial = 0;  // 1 + the largest trial index so far (0 when none)
};

// One point of the tuning curve, per record in insertion order.
struct HistoryPoint {
  std::int64_t record_id = 0;
  std::int64_t trial = 0;
  Status status = Status::ok;
  double median_s = 0;              // this record's (0 unless ok)
  std::optional<double> best_s;     // best ok median up to and including this record
  std::int64_t best_record_id = 0;  // the record holding best_s (0 when none)
};

// A measurement job of the queue, as a worker takes it.
struct QueueJob {
  std::int64_t id = 0;
  std::int64_t task_id = 0;
  std::string trace_hash;
  std::string device_key;     // which workers may take it: the task's target ("x86_avx2", "vta")
  std::string request;        // the search side's JSON: the record to write, less its measurement
  std::int64_t attempts = 0;  // times taken, this one included
};

struct QueueCounts {
  std::int64_t queued = 0;
  std::int64_t claimed = 0;  // leases expired or not
  std::int64_t done = 0;
};

// A tuning run's provenance (the runs table, schema version 4).
struct RunInfo {
  std::int64_t id = 0;
  std::string started_at;  // filled by add_run() when empty
  std::string command;     // the command line as typed
  std::string attune;      // "0.1.0, commit 2eedce8, gcc 12.2.0"
  std::string machine;     // "AMD EPYC 9R14, 2 logical CPUs"
};

struct ModelBlob {
  std::int64_t id = 0;
  std::string target;
  std::string kind;  // "V" (validity), "P" (static performance), "A" (post-compile), "network-pick/2", ...
  std::string blob;  // raw bytes: XGBoost's saved model, or a network pick's JSON (network_pick.hpp)
  std::string created_at;
};

class Database {
 public:
  // Errors (all attune::Error, message starting with the path):
  //   "PATH: no database at PATH"                              (read_only, file missing)
  //   "PATH: cannot create: directory DIR does not exist"
  //   "PATH: cannot open: permission denied"
  //   "PATH: not an attune database (file is not a database)"  (garbage bytes)
  //   "PATH: not an attune database (it has tables x, y and no attune meta table)"
  //   "PATH: unsupported schema_version N (this attune reads 1 to 3)"
  // The path ":memory:" opens a private in-memory database (read_write_create only).
  static Database open(const std::string& path, OpenMode mode = OpenMode::read_write_create);

  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  ~Database();

  const std::string& path() const;
  bool read_only() const;
  // The server role this connection acts as (PostgreSQL's current_user); empty for a SQLite
  // file, which has none. Workers name it in their leases: a row-level policy can then hold a
  // worker account to its own jobs (docs/shared-database.md, security model).
  std::string role() const;

  // ---- tasks ----
  // The existing task with the same (spec, target), else a new one named `name`.
  TaskInfo get_or_create_task(const std::string& name, const std::string& spec, const std::string& target);
  std::optional<TaskInfo> find_task(const std::string& spec, const std::string& target) const;
  std::optional<TaskInfo> task(std::int64_t task_id) const;
  std::vector<TaskInfo> tasks() const;  // by id

  // ---- records ----
  // Commits `r` (one transaction) and returns its id; ends any claim of its trace, and numbers
  // it when r.trial is kNextTrial. Throws Error for an unknown task_id or a trace that is not
  // JSON.
  std::int64_t insert(const Record& r);
  bool has_trace(std::int64_t task_id, const std::string& trace_hash) const;
  std::set<std::string> known_trace_hashes(std::int64_t task_id) const;
  TaskCounts counts(std::int64_t task_id) const;
  // The best verified schedule, as one of its ok records; nullopt when none is ok. A trace
  // measured more than once (re-measured by a confirmation, strategy kConfirmStrategy) counts
  // the upper median of its measurements, and once a task has confirmations only confirmed
  // traces compete: a single lucky timing cannot win. Without confirmations: the ok record with
  // the lowest median (ties: the earliest).
  // `keep`, when given, says which records compete (and which confirmations count), e.g. those
  // measured at one thread count (search/tuner.hpp's measured_at).
  std::optional<Record> best(std::int64_t task_id, const RecordFilter& keep = {}) const;
  // The task's ok records (those `keep` keeps, when given) grouped by trace, traces in the order
  // of their first ok record.
  std::vector<TraceMeasurements> measurements_by_trace(std::int64_t task_id, const RecordFilter& keep = {}) const;
  std::vector<HistoryPoint> history(std::int64_t task_id) const;
  std::vector<Record> records(std::int64_t task_id) const;  // insertion order
  std::optional<Record> record(std::int64_t record_id) const;

  // ---- claims (concurrent tuners) ----
  // In one BEGIN IMMEDIATE transaction: drops the claims of runs that are no longer alive,
  // then grants `owner` the trace with the task's next trial number (1 + the largest of its
  // records and claims), unless the task has a record of it, another owner claims it, or the
  // task's trials (confirmations not counted) plus its claims reach `budget` (0: no budget).
  // A claim ends when insert() records the trace, or with release_claim()/release_claims().
  Claim claim(std::int64_t task_id, const std::string& trace_hash, const std::string& owner, std::int64_t budget);
  void release_claim(std::int64_t task_id, const std::string& trace_hash, const std::string& owner);
  void release_claims(const std::string& owner);  // every claim of the run, at its end
  // Live claims of the task (those of dead runs are dropped by the next claim()).
  std::int64_t claims(std::int64_t task_id) const;

  // ---- the job queue (distributed measurement; queue.cpp, docs/shared-database.md) ----
  // The search side claims a trace (claim()) and enqueues it; a worker takes the job under a
  // lease it renews while it measures, and ends it with complete_job(): its record and the
  // job's end in one transaction, refused when the lease has passed to another worker. So a
  // job ends as exactly one record whoever dies when: a dead worker's lease expires and the
  // job is taken again; a dead search side's jobs are measured all the same.
  //
  // Enqueues the trace `owner` has claimed; the claim passes to the job (owner "job/ID"), so
  // that it outlives the run that enqueued it and keeps its trial number. `request` is the
  // search side's JSON for the worker. Throws Error when `owner` holds no claim of the trace.
  std::int64_t enqueue(std::int64_t task_id, const std::string& trace_hash, const std::string& device_key,
                       const std::string& request, const std::string& owner);
  // The oldest job for one of `device_keys` that is queued, or claimed under a lease that has
  // expired, now `worker`'s for `lease_ms` milliseconds (by the database's clock); nullopt when
  // there is none.
  std::optional<QueueJob> claim_job(const std::vector<std::string>& device_keys, const std::string& worker,
                                    std::int64_t lease_ms);
  // Extends the lease; false when the job is no longer `worker`'s.
  bool renew_lease(std::int64_t job_id, const std::string& worker, std::int64_t lease_ms);
  // In one transaction: inserts `r` and ends the job with it. nullopt, and nothing written,
  // when the job is no longer `worker`'s (its lease expired and another worker took it).
  std::optional<std::int64_t> complete_job(std::int64_t job_id, const std::string& worker, const Record& r);
  // Puts a job `worker` holds back in the queue (a worker stopping before it measured it).
  void release_job(std::int64_t job_id, const std::string& worker);
  // The record that ended the job; nullopt while it is queued or claimed.
  std::optional<std::int64_t> job_record(std::int64_t job_id) const;
  // Jobs of the task (0: of every task) by state.
  QueueCounts queue_counts(std::int64_t task_id = 0) const;

  // ---- runs ----
  std::int64_t add_run(const RunInfo& run);
  // By id; empty for a file of an older schema opened read-only (it has no runs table).
  std::vector<RunInfo> runs() const;

  // ---- cost models ----
  std::int64_t save_model(const std::string& target, const std::string& kind, const std::string& blob);
  std::optional<ModelBlob> latest_model(const std::string& target, const std::string& kind) const;
  std::vector<ModelBlob> models() const;  // every cost model and network pick, by id

  // Every record as one JSON object per line, by id, with its task's name, spec and target.
  void export_jsonl(std::ostream& out) const;

 private:
  struct Impl;
  explicit Database(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// What copy_database() did.
struct CopySummary {
  std::int64_t tasks = 0;            // tasks of src (each found or created in dst)
  std::int64_t records = 0;          // records written to dst
  std::int64_t records_present = 0;  // records of src that dst already had
  std::int64_t models = 0;           // cost models written to dst
  std::int64_t models_present = 0;   // cost models of src that dst already had
};

// Merges every task, record and cost model of `src` into `dst` (`attune db copy`), between
// SQLite files and PostgreSQL databases alike. Tasks are matched by spec and target; records
// keep their trial numbers, timings and timestamps (their ids are dst's). A record dst already
// has (same task, trace, trial and creation time), or a model (same target, kind and bytes),
// is not written again, so an interrupted copy is finished by running it again. Models are
// written in src's order, so the latest of a kind stays the latest.
// Claims are not copied: they belong to runs of the source.
CopySummary copy_database(const Database& src, Database& dst);

// How messages name a database: the path, or a postgresql:// URL without any password.
std::string database_display_name(const std::string& path_or_url);

// The hash that identifies a task: content_hash over spec and target, length-delimited.
std::string task_hash(std::string_view spec, std::string_view target);
// Now, as ISO-8601 UTC with milliseconds: "2025-01-31T12:34:56.789Z".
std::string utc_now_iso8601();

}  // namespace attune
