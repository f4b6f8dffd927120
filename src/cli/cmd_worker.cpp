// cmd_worker.cpp — `attune worker --db postgresql://...`: measures the jobs that `attune tune
// --workers remote` enqueues (search/remote.hpp, docs/shared-database.md).
//
// SIGTERM and SIGINT ask it to stop: the job in hand is finished and recorded (or given back
// to the queue when the signal cut its measurement short), then it exits 0. A second signal
// ends it at once. The password never appears on the command line: libpq reads PGPASSWORD or
// ~/.pgpass.
#include <CLI/CLI.hpp>

#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/cli_common.hpp"
#include "ir/error.hpp"
#include "search/remote.hpp"

namespace attune::cli {

namespace {

std::atomic<bool> g_stop{false};

void on_signal(int sig) {
  if (g_stop.exchange(true)) {  // the second one: now
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  }
}

struct WorkerArgs {
  std::string db = kDefaultDb;
  std::vector<std::string> device_keys;
  int max_jobs = 0;
  double lease_s = 60;
  double exit_when_idle_s = 0;
};

int run_worker_command(const WorkerArgs& a) {
  WorkerOptions o;
  o.db = a.db;
  o.device_keys = a.device_keys;
  o.max_jobs = a.max_jobs;
  o.lease_s = a.lease_s;
  o.exit_when_idle_s = a.exit_when_idle_s;
  o.stop = &g_stop;
  o.log = &std::cout;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGINT, &sa, nullptr);
  const WorkerSummary s = run_worker(o);
  std::cout << "worker: " << s.done << " jobs recorded, " << s.released << " released, " << s.lost
            << " lost to another worker, " << s.reconnects << " reconnections" << std::endl;
  return 0;
}

}  // namespace

void add_worker_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<WorkerArgs>();
  auto* sub =
      app.add_subcommand("worker", "Build and measure the jobs that `tune --workers remote` puts in the database");
  sub->add_option("--db", args->db,
                  "the shared database: postgresql://USER@HOST/DB (password: PGPASSWORD or ~/.pgpass)")
      ->required();
  sub->add_option("--device-key", args->device_keys,
                  "serve jobs of this target (repeatable; default: this machine's cpu target and vta)");
  sub->add_option("--max-jobs", args->max_jobs, "stop after this many jobs (0: no limit)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--lease", args->lease_s, "seconds a job is held without renewal before another worker may take it")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  sub->add_option("--exit-when-idle", args->exit_when_idle_s, "stop after this many seconds without a job (0: never)")
      ->check(CLI::NonNegativeNumber);
  sub->callback([&action, args] { action = [args] { return run_worker_command(*args); }; });
}

}  // namespace attune::cli
