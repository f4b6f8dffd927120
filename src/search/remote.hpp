// search/remote.hpp — distributed measurement through the database's job queue: the search
// side's request for one job, and the worker that takes jobs (`attune worker`).
//
// The search side (make_remote_runner, engine.hpp) proposes and claims as always, then
// enqueues each candidate with a request: the record it wants, less its measurement, and how
// to measure it. A worker takes jobs for its device keys under a lease that a thread of its own
// renews while it builds and measures with the same builders and runners as an in-process
// tune (the C compiler and the isolated attune-worker; the VTA compiler and simulator), then
// writes the record and ends the job in one transaction (Database::complete_job). Models and
// search state never leave the search side. See docs/shared-database.md.
// Tests: tests/search/remote_test.cpp, tests/db/queue_test.cpp, tests/cli/queue_*_test.sh.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/db.hpp"

namespace attune {

// The request of one job: `r` (the record to write, less its measurement), and the threads
// and seed to measure with.
std::string job_request(const Record& r, int threads, std::uint64_t seed);
struct JobRequest {
  Record record;
  int threads = 1;
  std::uint64_t seed = 0;
};
// Throws Error naming the job for a request that is not one.
JobRequest parse_job_request(const std::string& text, std::int64_t job_id);

struct WorkerOptions {
  std::string db;                           // a postgresql:// URL or an SQLite file
  std::vector<std::string> device_keys;     // empty: this machine's CPU target and "vta"
  int max_jobs = 0;                         // stop after this many jobs (0: no limit)
  double lease_s = 60;                      // lease of a job; renewed every third of it
  double poll_s = 0.2;                      // idle: how often to look for a job
  double exit_when_idle_s = 0;              // stop after this long without a job (0: never)
  const std::atomic<bool>* stop = nullptr;  // set (by SIGTERM): finish or release the job, then end
  std::ostream* log = nullptr;              // one line per job and per reconnection
};

struct WorkerSummary {
  int done = 0;      // jobs ended with a record by this worker
  int lost = 0;      // jobs whose lease passed to another worker before they were recorded
  int released = 0;  // jobs given back (stopped mid-measurement)
  int reconnects = 0;
};

// This machine's device keys when none are given: its CPU target's name, and "vta".
std::vector<std::string> default_device_keys();

// Takes and measures jobs until stopped, max_jobs or idle. Throws Error when the database
// cannot be opened at the start (a bad URL, a refused password, no server); later losses of the
// connection (a server restart) are waited out, reconnecting with backoff.
WorkerSummary run_worker(const WorkerOptions& o);

}  // namespace attune
