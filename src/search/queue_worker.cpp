// run_worker() (remote.hpp): a worker of the job queue, the side of `attune worker`.
//
// One job at a time: take it under a lease, build and measure it with the parts an in-process
// tune uses (engine.hpp), write its record and end it in one transaction. A thread renews the
// lease on a connection of its own while the job is measured, so a job that takes longer than
// its lease is not taken away; a worker that dies stops renewing and its job is taken again
// once the lease has expired. A stop request (SIGTERM) lets the job in hand finish, or gives
// it back when its measurement was cut short (a signal sent to the whole process group ends
// the measuring child too: that is no result to record).
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "codegen/codegen_vta.hpp"
#include "db/not_ready.hpp"
#include "hw/target.hpp"
#include "ir/error.hpp"
#include "search/engine.hpp"
#include "search/remote.hpp"
#include "search/tuner.hpp"

namespace attune {

namespace {

using Clock = std::chrono::steady_clock;

struct Stopped {};  // a job in hand given up: stopping, and the database did not answer

bool stopping(const WorkerOptions& o) { return o.stop && o.stop->load(); }

void log_line(const WorkerOptions& o, const std::string& line) {
  if (o.log) *o.log << "worker: " << line << std::endl;
}

// Sleeps up to `s` seconds, waking early for a stop request.
void nap(const WorkerOptions& o, double s) {
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  while (Clock::now() < until && !stopping(o))
    std::this_thread::sleep_for(std::min<Clock::duration>(until - Clock::now(), std::chrono::milliseconds(20)));
}

// The connection, reopened with backoff (0.1 s doubling to 5 s) after the server went away.
class Connection {
 public:
  // The first connection: a bad URL, an unknown database, a refused password or no server is
  // an error at once (a typo must not spin); a server that is starting up or shutting down
  // (DatabaseNotReady: launched with the database, or restarted meanwhile) is waited for,
  // through its restart (no server for a moment), for up to kFirstConnectWait_s.
  Connection(const WorkerOptions& o, WorkerSummary& s) : o_(o), s_(s) {
    const auto give_up = Clock::now() + std::chrono::seconds(kFirstConnectWait_s);
    bool server_seen = false;
    open_retrying([&](const Error& e) {
      server_seen = server_seen || dynamic_cast<const DatabaseNotReady*>(&e);
      return server_seen && !stopping(o_) && Clock::now() < give_up;
    });
  }

  // Reconnects after lost(), for as long as it takes; once a stop was asked, one attempt, its
  // error the caller's.
  Database& get() {
    if (!db_) {
      open_retrying([&](const Error&) { return !stopping(o_); });
      ++s_.reconnects;
      log_line(o_, "reconnected to " + db_->path());
    }
    return *db_;
  }
  void lost(const Error& e) {
    log_line(o_, std::string("lost the database: ") + e.what());
    db_.reset();
  }

 private:
  static constexpr int kFirstConnectWait_s = 120;

  // Opens the database, trying again after each error that `again(error)` accepts.
  template <class Again>
  void open_retrying(Again again) {
    double backoff = 0.1;
    while (!db_) {
      try {
        db_ = Database::open(o_.db);
      } catch (const Error& e) {
        if (!again(e)) throw;
        log_line(o_, std::string(e.what()) + "; retrying in " + std::to_string(backoff).substr(0, 4) + " s");
        nap(o_, backoff);
        backoff = std::min(backoff * 2, 5.0);
      }
    }
  }

  const WorkerOptions& o_;
  WorkerSummary& s_;
  std::optional<Database> db_;
};

// Whether a database call gives up when a stop is asked: waiting for a job does at once; the
// calls of a job in hand go on (a few more tries), so that the job is finished and recorded.
enum class OnStop { give_up, finish_job };

// Runs `fn(db)` until it gets through, reconnecting after each failure; nullopt when a stop
// request ended the tries (see OnStop).
template <class Fn>
auto with_db(Connection& c, const WorkerOptions& o, OnStop on_stop, Fn fn) -> std::optional<decltype(fn(c.get()))> {
  constexpr int kTriesOnceStopping = 3;
  for (int after_stop = 0;; ) {
    if (stopping(o) && (on_stop == OnStop::give_up || after_stop++ >= kTriesOnceStopping)) return std::nullopt;
    try {
      return fn(c.get());
    } catch (const Error& e) {
      c.lost(e);
    }
  }
}

// Renews the lease of the job in hand every third of the lease, on its own connection.
class LeaseKeeper {
 public:
  LeaseKeeper(const WorkerOptions& o, std::int64_t job, const std::string& me)
      : thread_([this, &o, job, me] { keep(o, job, me); }) {}
  ~LeaseKeeper() {
    {
      std::lock_guard lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  bool lost() const { return lost_.load(); }

 private:
  void keep(const WorkerOptions& o, std::int64_t job, const std::string& me) {
    const auto lease_ms = static_cast<std::int64_t>(o.lease_s * 1000);
    const auto every = std::chrono::duration<double>(o.lease_s / 3);
    std::optional<Database> db;
    std::unique_lock lock(m_);
    while (!cv_.wait_for(lock, every, [&] { return done_; })) {
      try {
        if (!db) db = Database::open(o.db);
        if (!db->renew_lease(job, me, lease_ms)) lost_ = true;
      } catch (const Error&) {
        db.reset();  // the server is away: try again at the next tick
      }
    }
  }

  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> lost_{false};
  std::thread thread_;
};

// The builder and runner of one task, kept while jobs of the task keep coming.
struct TaskParts {
  Op op;
  bool vta = false;  // simulated: no thread count to record
  std::unique_ptr<engine::Builder> builder;
  std::unique_ptr<engine::Runner> runner;
};

std::unique_ptr<TaskParts> parts_for(const TaskInfo& task, const JobRequest& req) {
  auto p = std::make_unique<TaskParts>();
  p->op = parse_spec(task.spec);
  if (is_vta_target_arg(task.target)) {
    p->vta = true;
    const VtaConfig cfg = vta_config_for(task.target);
    p->builder = engine::make_vta_builder(p->op, load_target("vta"), cfg, 1);
    p->runner = engine::make_simulator_runner(p->op, cfg, 1, req.seed);
  } else {
    const Target target = load_target(task.target);
    if (const auto why = host_cannot_run(target); !why.empty()) throw Error(why);
    p->builder = engine::make_c_builder(p->op, target);
    p->runner = engine::make_worker_runner(p->op, req.threads, req.seed);
  }
  return p;
}

// Builds and measures the job's candidate: its record, or nullopt when a stop request cut the
// measurement short.
std::optional<Record> measure(const WorkerOptions& o, TaskParts& p, const JobRequest& req,
                              std::optional<double> best_s) {
  engine::Candidate cand;
  cand.trace_text = req.record.trace;
  cand.trace_hash = req.record.trace_hash;
  const std::vector<engine::Built> built = p.builder->build({&cand});
  Record r = req.record;
  r.compiler = p.builder->compiler_info();
  const engine::Built& b = built.at(0);
  r.compile_s = b.compile_s;
  if (!b.ok()) {
    r.status = b.status;
    r.error = b.error;
    return r;
  }
  std::optional<Measurement> m;
  nlohmann::json hidden;
  engine::RunContext ctx;
  ctx.best_s = [&] { return best_s; };
  ctx.out_of_time = [] { return false; };
  ctx.done = [&](std::size_t, const Measurement& got, const nlohmann::json& h) {
    m = got;
    hidden = h;
  };
  p.runner->run({&b}, ctx);
  if (!m || (stopping(o) && !m->ok())) return std::nullopt;
  r.set_measurement(*m);
  r.compile_s = b.compile_s;
  r.hidden_features = hidden;
  note_measured_artifact(r, b.artifact);
  if (!p.vta) note_measured_threads(r, req.threads);
  return r;
}

}  // namespace

std::vector<std::string> default_device_keys() { return {tuning_target_name("cpu"), "vta"}; }

WorkerSummary run_worker(const WorkerOptions& o) {
  WorkerSummary s;
  Connection conn(o, s);  // throws at once for a bad URL, a refused password, no server
  const std::vector<std::string> keys = o.device_keys.empty() ? default_device_keys() : o.device_keys;
  // worker/ROLE/host/pid/...: the database role first, for the row-level policy of the docs.
  const std::string me = "worker/" + conn.get().role() + "/" + new_claim_owner();
  const auto lease_ms = static_cast<std::int64_t>(o.lease_s * 1000);
  std::map<std::int64_t, std::unique_ptr<TaskParts>> parts;  // by task id
  auto idle_since = Clock::now();
  // An empty queue is looked at again after 2 ms, doubling up to poll_s: the search side
  // enqueues its next round as soon as a round's results are in.
  double idle_wait = 0.002;
  std::string key_list;
  for (const auto& k : keys) key_list += (key_list.empty() ? "" : ", ") + k;
  log_line(o, "serving " + key_list + " from " + conn.get().path());

  while (!stopping(o) && (o.max_jobs <= 0 || s.done < o.max_jobs)) {
    const auto job = with_db(conn, o, OnStop::give_up, [&](Database& db) { return db.claim_job(keys, me, lease_ms); });
    if (!job) break;  // stopped
    if (!*job) {
      if (o.exit_when_idle_s > 0 &&
          std::chrono::duration<double>(Clock::now() - idle_since).count() >= o.exit_when_idle_s)
        break;
      nap(o, idle_wait);
      idle_wait = std::min(idle_wait * 2, o.poll_s);
      continue;
    }
    idle_wait = 0.002;
    const QueueJob& j = **job;
    std::optional<Record> rec;  // nullopt: the job goes back to the queue
    {
      const LeaseKeeper lease(o, j.id, me);
      try {
        const JobRequest req = parse_job_request(j.request, j.id);
        const auto task = with_db(conn, o, OnStop::finish_job, [&](Database& db) { return db.task(j.task_id); });
        if (!task) throw Stopped{};
        if (!*task) throw Error("job " + std::to_string(j.id) + ": no task " + std::to_string(j.task_id));
        auto& p = parts[j.task_id];
        if (!p) p = parts_for(**task, req);
        const auto best = with_db(conn, o, OnStop::finish_job, [&](Database& db) { return db.best(j.task_id); });
        if (!best) throw Stopped{};
        rec = measure(o, *p, req, *best ? std::optional<double>((*best)->median_s) : std::nullopt);
      } catch (const Stopped&) {
        // Stopped while the database was away: nothing measured, nothing to record.
      } catch (const Error& e) {
        // A job that cannot be built or measured here ends as a record saying why, like any
        // failed candidate: every job ends as one record.
        JobRequest req;
        try {
          req = parse_job_request(j.request, j.id);
        } catch (const Error&) {
          req.record.task_id = j.task_id;
          req.record.trace = "null";
          req.record.trace_hash = j.trace_hash;
        }
        rec = req.record;
        rec->status = Status::invalid;
        rec->error = e.what();
      }
    }
    if (!rec) {  // stopped before a result: back to the queue for another worker
      try {
        conn.get().release_job(j.id, me);
      } catch (const Error&) {
        // The lease expires by itself.
      }
      ++s.released;
      log_line(o, "job " + std::to_string(j.id) + " released");
      break;
    }
    std::optional<std::optional<std::int64_t>> id;
    // Recorded even when a stop request came meanwhile: the measurement is complete. A lease
    // lost to another worker writes nothing (complete_job refuses).
    // 100 tries 0.2 s apart, a stop request or not (nap would return at once): a second
    // signal still ends the worker at once.
    for (int tries = 0; !id && tries < 100; ++tries) {
      try {
        id = conn.get().complete_job(j.id, me, *rec);
      } catch (const Error& e) {
        conn.lost(e);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    }
    if (id && *id) {
      ++s.done;
      log_line(o, "job " + std::to_string(j.id) + " (task " + std::to_string(j.task_id) + ", trial " +
                      std::to_string(rec->trial) + ", attempt " + std::to_string(j.attempts) +
                      "): " + std::string(status_name(rec->status)) + ", record " + std::to_string(**id));
    } else {
      ++s.lost;
      log_line(o, "job " + std::to_string(j.id) + ": its lease passed to another worker; not recorded");
    }
    idle_since = Clock::now();
  }
  return s;
}

}  // namespace attune
