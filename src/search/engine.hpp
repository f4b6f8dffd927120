// The tuning engine: one loop over three interfaces (engine.cpp runs it).
//
//   Proposer  what to try next: the knob strategies over a Space (random, evolutionary, xgb,
//             ml2, the mapping bandit; space_proposer.cpp) and the RL agent (rl_proposer.cpp)
//   Builder   schedule -> artifact: the C compiler (cpu_backend.cpp), the VTA compiler
//             (vta_backend.cpp); CUDA later
//   Runner    artifact -> measurement: the isolated worker process, the VTA simulator
//
// Everything else is done once, in the loop, for every strategy: skipping traces the database
// already holds, the budget (trials, seconds), recording each attempt the moment it finishes,
// progress, two-level selection (compile more than is measured), the hopeless-candidate
// cut-off, and the confirmation re-measurements of the fastest traces.
#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/artifact.hpp"
#include "db/db.hpp"
#include "ir/measure.hpp"
#include "search/tuner.hpp"

namespace attune::engine {

// One proposal, whatever proposed it.
struct Candidate {
  std::string trace_text;   // the schedule as the database stores it (its hash is the resume key)
  std::string trace_hash;   // content_hash(trace_text)
  nlohmann::json features;  // what the proposer wants recorded (space, config, knobs, visible...)
  std::string refused;      // non-empty: invalid before building, with the reason
  std::int64_t tag = 0;     // the proposer's own handle on it (e.g. an index)
};

// A candidate after its builder: ready to run, or failed with a status.
struct Built {
  Status status = Status::ok;  // ok, invalid (a transformation refused it) or compile_error
  std::string error;
  double compile_s = 0;
  double lower_s = 0;     // generating its code (schedule -> source), before compiling
  nlohmann::json hidden;  // ML²Tuner's hidden features read from the compiled result
  Artifact artifact;      // what was built (CPU: the C and its flags; recorded by hash)
  std::any backend;       // the builder's own product, for its runner
  bool ok() const { return status == Status::ok; }
};

class Proposer {
 public:
  virtual ~Proposer() = default;
  virtual std::string strategy() const = 0;  // recorded as Record::strategy
  // Up to n new candidates: none whose hash is in `known` (the engine adds theirs after).
  virtual std::vector<Candidate> propose(int n, const std::set<std::string>& known, std::mt19937_64& rng) = 0;
  // Two-level proposers (ml2) build `factor` times what they measure and pick which to run:
  // indices into `built` (all ok), at most n.
  virtual int factor() const { return 1; }
  virtual std::vector<std::size_t> select(const std::vector<const Candidate*>& cands,
                                          const std::vector<const Built*>& built, int n) {
    std::vector<std::size_t> all;
    for (std::size_t i = 0; i < built.size() && static_cast<int>(i) < n; ++i) all.push_back(i);
    return all;
  }
  // Every recorded attempt of this run, as it is recorded.
  virtual void observe(const Candidate& c, const Measurement& m, const nlohmann::json& hidden) {}
  // A proposed candidate that was built but not chosen to run: it may be proposed again.
  virtual void unmeasured(const Candidate& c) {}
  virtual void end_round(std::mt19937_64& rng) {}  // after each round's measurements
  virtual void finish() {}                         // after the last record (save models)
  virtual std::vector<ArmResult> arms(const Op& op) const { return {}; }
  // Fields to add to the candidate's record's features (Strategy::predictions()); null: none.
  virtual nlohmann::json predictions(const Candidate& c) const { return nullptr; }
};

class Builder {
 public:
  virtual ~Builder() = default;
  // In input order; never throws for a bad candidate (its Built says what went wrong).
  virtual std::vector<Built> build(const std::vector<const Candidate*>& cands) = 0;
  // The kernel an earlier record measured, rebuilt (confirmations). Throws Error when it
  // cannot be (it no longer replays, or would not be the same kernel).
  virtual Built rebuild(const Record& r) = 0;
  virtual std::string compiler_info() const = 0;  // recorded as Record::compiler
};

// What the loop tells a runner while it measures a batch.
struct RunContext {
  std::function<std::optional<double>()> best_s;  // the best time so far (the cut-off's base)
  std::function<bool()> out_of_time;              // stop before the next candidate
  std::function<void(std::size_t, const Measurement&, const nlohmann::json& hidden)> done;  // record batch[i]
  bool full_timing = false;  // no cut-off (confirmations)
  // For runners that record themselves (remote workers): the record the loop would write for
  // batch[i], less its measurement, and the run's name in the claims table (whose claim of
  // the trace the job takes over). Empty for confirmations.
  std::function<Record(std::size_t)> record_of;
  std::string claim_owner;
};

class Runner {
 public:
  virtual ~Runner() = default;
  // Measures batch[i] (all ok) and reports each through ctx.done as it finishes; stops early
  // when ctx.out_of_time() says so.
  virtual void run(const std::vector<const Built*>& batch, const RunContext& ctx) = 0;
  // Whether re-measuring a kernel can give another time (a real machine) or not (a simulator):
  // confirmations are only for the former.
  virtual bool noisy() const = 0;
  // Whether what ctx.done reports is already in the database (remote workers write each
  // record and end its job in one transaction): then the loop only counts it.
  virtual bool records_itself() const { return false; }
};

// The pieces tune() chose for one task.
struct Parts {
  std::unique_ptr<Proposer> proposer;
  std::unique_ptr<Builder> builder;
  std::unique_ptr<Runner> runner;
  int jobs = 1;  // compile jobs (cores): the default batch is 2 x jobs
};

// The loop: proposes, builds, measures and records `task`'s attempts in `db` until the budget
// in `o` (trials, time_s, confirm_top/confirm_runs, batch, seed, on_progress) is spent.
TuneResult run(const Op& op, const TuneOptions& o, Database& db, const TaskInfo& task, Parts& parts);

// ---- the parts (one file each) ----
// The C backend: candidates lowered from their trace text (lower(), codegen.hpp), compiled in
// parallel; measured one at a time in isolated worker processes at `threads` threads, every
// output checked against the reference evaluator.
std::unique_ptr<Builder> make_c_builder(const Op& op, const Target& target);
std::unique_ptr<Runner> make_worker_runner(const Op& op, int threads, std::uint64_t seed);
// The VTA backend: candidates (their trace text: knobs by name) lowered in-process with the
// configuration `cfg`, timed on the simulator, and a candidate that would become the new best
// run functionally and checked bit-exact.
std::unique_ptr<Builder> make_vta_builder(const Op& op, const Target& target, const VtaConfig& cfg, int jobs);
std::unique_ptr<Runner> make_simulator_runner(const Op& op, const VtaConfig& cfg, int jobs, std::uint64_t seed);
// Remote workers (remote.cpp, `attune worker`): nothing is built here; each candidate becomes
// a job of the database's queue for workers of `device_key`, who build, measure and record it
// (at `threads` threads, checked with `seed`).
std::unique_ptr<Builder> make_remote_builder();
std::unique_ptr<Runner> make_remote_runner(Database& db, const TaskInfo& task, const std::string& device_key,
                                           int threads, std::uint64_t seed);
// Knob strategies over a Space (make_strategy / make_arm_bandit), resumed from the task's records.
std::unique_ptr<Proposer> make_space_proposer(std::unique_ptr<Space> space, std::unique_ptr<Strategy> strategy,
                                              Database& db, const TaskInfo& task, const std::string& target_name);
// The RL agent (rl.hpp) extending measured traces; `policy`: a policy file, empty: untrained.
std::unique_ptr<Proposer> make_rl_proposer(const Op& op, const Target& target, int threads, const std::string& policy,
                                           std::uint64_t seed, Database& db, const TaskInfo& task);

}  // namespace attune::engine
