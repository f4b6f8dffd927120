// The tuning loop (engine.hpp): propose -> build -> (select) -> measure -> record, per round.
//
// A trace the database already holds for the task is never proposed again (resume measures
// nothing twice), and every attempt is claimed in the database before it is built or measured
// (Database::claim), which numbers it: tuners running at once on one task share its budget,
// and a trace another run has in flight is left to that run. Each attempt is committed the moment it finishes, so a
// killed run loses nothing recorded. Attempts found to fail while building a two-level proposer's surplus count against
// the budget like any other, carry "measured": false, and those beyond the budget are dropped unrecorded. After the
// search, the fastest traces are measured again in fresh processes (confirmations, on runners whose timings are noisy)
// so that Database::best() judges them by a median rather than by one lucky draw. A SIGINT or SIGTERM inside an
// InterruptScope (interrupt.hpp) stops the loop after the batch in flight, whose unrecorded
// results are abandoned (its worker or compilers were killed), and skips the confirmations.
#include "search/engine.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <map>
#include <optional>

#include "ir/error.hpp"
#include "runtime/interrupt.hpp"
#include "search/progress.hpp"

namespace attune::engine {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The fastest ok traces of the task (by their fastest measurement), at most `top`, with the
// confirmations each already has.
std::vector<const TraceMeasurements*> fastest_traces(const std::vector<TraceMeasurements>& traces, int top) {
  auto fastest = [](const TraceMeasurements* t) {
    double f = t->ok.front().median_s;
    for (const auto& r : t->ok) f = std::min(f, r.median_s);
    return f;
  };
  std::vector<const TraceMeasurements*> out;
  for (const auto& t : traces)
    if (t.own()) out.push_back(&t);
  std::stable_sort(out.begin(), out.end(), [&](const auto* a, const auto* b) { return fastest(a) < fastest(b); });
  if (out.size() > static_cast<std::size_t>(top)) out.resize(static_cast<std::size_t>(top));
  return out;
}

class Loop {
 public:
  Loop(const Op& op, const TuneOptions& o, Database& db, const TaskInfo& task, Parts& p)
      : op_(op), o_(o), db_(db), task_(task), p_(p), rng_(o.seed) {
    budget_ = o.trials > 0 ? o.trials : INT_MAX;
    known_ = db.known_trace_hashes(task.id);
    counts_ = db.counts(task.id);
    res_.task_id = task.id;
    res_.trials_before = static_cast<int>(counts_.trials);
    if (auto b = best_measured_at(db, task.id, o.threads)) best_s_ = b->median_s;
    confirm_ = p.runner->noisy() && o.confirm_top > 0 && o.confirm_runs > 0;
    // The search stops early enough to leave the confirmations their time.
    search_s_ = o.time_s > 0 && confirm_ ? o.time_s - std::min(0.1 * o.time_s, 15.0) : o.time_s;
  }

  TuneResult run() {
    // However the run ends, none of its claims outlives it (a killed process's claims are
    // dropped by the next claim() of any run).
    struct ReleaseClaims {
      Database& db;
      const std::string& owner;
      ~ReleaseClaims() {
        try {
          db.release_claims(owner);
        } catch (const Error&) {
        }
      }
    } release{db_, owner_};
    report();
    const int batch = o_.batch > 0 ? o_.batch : 2 * p_.jobs;
    const int factor = std::max(1, p_.proposer->factor());
    int empty_rounds = 0;
    while (!out_of_budget() && !interrupted()) {
      counts_ = db_.counts(task_.id);  // other runs' records count against the budget too
      if (out_of_budget()) break;
      const int want = static_cast<int>(std::min<long long>(batch, static_cast<long long>(budget_) - counts_.trials));
      auto t_propose = Clock::now();
      std::vector<Candidate> cands = p_.proposer->propose(want * factor, known_, rng_);
      res_.phases_s["propose"] += seconds_since(t_propose);
      if (cands.empty()) {
        if (++empty_rounds >= 20) break;  // the space is exhausted
        continue;
      }
      empty_rounds = 0;
      for (const auto& c : cands) known_.insert(c.trace_hash);
      round(cands, want, factor);
      p_.proposer->end_round(rng_);
    }
    if (confirm_ && !interrupted()) {
      const auto t_confirm = Clock::now();
      confirm();
      res_.phases_s["confirm"] += seconds_since(t_confirm);
    }
    p_.proposer->finish();
    res_.interrupted = interrupted();
    res_.elapsed_s = seconds_since(t0_);
    counts_ = db_.counts(task_.id);
    res_.trials_total = static_cast<int>(counts_.trials);
    res_.valid = static_cast<int>(counts_.valid);
    res_.candidates_per_minute = res_.elapsed_s > 0 ? res_.trials_run * 60.0 / res_.elapsed_s : 0;
    res_.best = best_measured_at(db_, task_.id, o_.threads);
    if (res_.best) res_.best_gflops = gflops_of(op_, res_.best->median_s);
    res_.arms = p_.proposer->arms(op_);
    return res_;
  }

 private:
  bool out_of_time() const { return search_s_ > 0 && seconds_since(t0_) >= search_s_; }
  bool out_of_budget() const { return spent_ || counts_.trials >= budget_ || out_of_time(); }

  // Claims `c` for this run; false when another run has measured it or has it in flight, or
  // the budget is spent (then the loop ends after this round).
  bool claim(const Candidate& c) {
    const Claim cl = db_.claim(task_.id, c.trace_hash, owner_, budget_ == INT_MAX ? 0 : budget_);
    if (cl.outcome == Claim::Outcome::budget_spent) spent_ = true;
    if (!cl.granted()) return false;
    trial_of_[c.trace_hash] = cl.trial;
    return true;
  }

  // Gives back a claim that will not be measured (not chosen, out of time), so that any run
  // may propose the trace again.
  void unclaim(const Candidate& c) {
    if (trial_of_.erase(c.trace_hash) > 0) db_.release_claim(task_.id, c.trace_hash, owner_);
  }

  void report() {
    if (o_.on_progress)
      o_.on_progress(tune_progress(op_, o_, counts_, best_s_, seconds_since(t0_), res_.trials_run, budget_));
  }

  // One round: claim, build what was not refused, let a two-level proposer choose, measure,
  // record. One-level proposers claim every candidate before building it; a two-level one
  // builds its surplus unclaimed and claims what it records or measures.
  void round(const std::vector<Candidate>& cands, int want, int factor) {
    // A candidate that is not ours to record: taken by another run (it stays known, so it is
    // not proposed again), or beyond the budget (forgotten).
    auto not_ours = [&](const Candidate& c) {
      if (spent_) known_.erase(c.trace_hash);
    };
    // Failures found before anything ran: with a surplus (factor > 1) they are recorded with
    // "measured": false; otherwise each is an attempt, as AutoTVM counts them.
    auto record_failure = [&](const Candidate& c, const Built& b) {
      if (factor > 1 && !claim(c)) return not_ours(c);
      Measurement m;
      m.status = b.status;
      m.error = b.error;
      record(c, b, m, b.hidden, /*measured=*/factor == 1, /*recorded=*/false);
    };
    std::vector<const Candidate*> to_build;
    for (const auto& c : cands) {
      if (factor == 1 && !claim(c)) {
        not_ours(c);
        continue;
      }
      if (c.refused.empty()) {
        to_build.push_back(&c);
        continue;
      }
      Built refused;
      refused.status = Status::invalid;
      refused.error = c.refused;
      record_failure(c, refused);
    }
    const auto t_build = Clock::now();
    const std::vector<Built> built = p_.builder->build(to_build);
    {
      double lower_s = 0;
      for (const auto& b : built) lower_s += b.lower_s;
      res_.phases_s["lower"] += lower_s;
      res_.phases_s["compile"] += std::max(0.0, seconds_since(t_build) - lower_s);
    }
    // A compiler killed by the interrupt is not the candidate's failure: record none of them.
    if (interrupted()) return;
    std::vector<const Candidate*> ok_cands;
    std::vector<const Built*> ok_built;
    for (std::size_t i = 0; i < built.size(); ++i) {
      if (built[i].ok()) {
        ok_cands.push_back(to_build[i]);
        ok_built.push_back(&built[i]);
      } else {
        record_failure(*to_build[i], built[i]);
      }
    }
    std::vector<std::size_t> chosen;
    std::vector<bool> taken(ok_built.size(), false);  // by another run, or beyond the budget
    if (factor > 1) {
      const int room = static_cast<int>(std::min<long long>(want, static_cast<long long>(budget_) - counts_.trials));
      const auto t_select = Clock::now();
      const std::vector<std::size_t> selected = p_.proposer->select(ok_cands, ok_built, std::max(0, room));
      res_.phases_s["propose"] += seconds_since(t_select);
      for (std::size_t k : selected) {
        if (claim(*ok_cands.at(k))) {
          chosen.push_back(k);
        } else {
          taken[k] = true;
          not_ours(*ok_cands[k]);
        }
      }
    } else {
      for (std::size_t i = 0; i < ok_built.size(); ++i) chosen.push_back(i);
    }
    std::vector<bool> ran(ok_built.size(), false);
    std::vector<const Built*> batch;
    for (std::size_t k : chosen) batch.push_back(ok_built.at(k));
    RunContext ctx;
    ctx.best_s = [&] { return best_s_; };
    ctx.out_of_time = [&] { return out_of_time() || interrupted(); };
    double reported_s = 0;  // measuring steps the runner accounted for, and recording
    ctx.done = [&](std::size_t j, const Measurement& m, const nlohmann::json& hidden) {
      if (interrupted()) return;  // the worker may have been killed by it: not a result
      const std::size_t k = chosen.at(j);
      ran[k] = true;
      ++res_.measured;
      for (const auto& [phase, s] : m.phases_s) {
        res_.phases_s[phase] += s;
        reported_s += s;
      }
      const auto t_record = Clock::now();
      record(*ok_cands[k], *ok_built[k], m, hidden, true, p_.runner->records_itself());
      reported_s += seconds_since(t_record);
    };
    ctx.record_of = [&](std::size_t j) {
      const std::size_t k = chosen.at(j);
      return make_record(*ok_cands[k], *ok_built[k], Measurement{}, nlohmann::json(), true);
    };
    ctx.claim_owner = owner_;
    const auto t_run = Clock::now();
    p_.runner->run(batch, ctx);
    res_.phases_s["runner"] += std::max(0.0, seconds_since(t_run) - reported_s);
    // Built but never run (not chosen, or the time ran out): free to come back later.
    for (std::size_t k = 0; k < ok_built.size(); ++k) {
      if (ran[k] || taken[k]) continue;
      unclaim(*ok_cands[k]);
      known_.erase(ok_cands[k]->trace_hash);
      p_.proposer->unmeasured(*ok_cands[k]);
    }
  }

  // The record of an attempt, numbered by its claim.
  Record make_record(const Candidate& c, const Built& b, const Measurement& m, const nlohmann::json& hidden,
                     bool measured) const {
    Record r;
    r.task_id = task_.id;
    r.trace = c.trace_text;
    r.trace_hash = c.trace_hash;
    r.set_measurement(m);
    r.compile_s = b.compile_s;
    r.features = c.features;
    if (!measured) r.features["measured"] = false;
    if (const nlohmann::json p = p_.proposer->predictions(c); p.is_object())
      for (const auto& [k, v] : p.items()) r.features[k] = v;
    r.hidden_features = hidden;
    r.compiler = p_.builder->compiler_info();
    note_measured_artifact(r, b.artifact);
    if (o_.threads > 0) note_measured_threads(r, o_.threads);
    r.strategy = p_.proposer->strategy();
    r.seed = o_.seed;
    const auto claimed = trial_of_.find(c.trace_hash);
    ATTUNE_CHECK(claimed != trial_of_.end(), "a candidate is claimed before it is recorded");
    r.trial = claimed->second;
    return r;
  }

  // Records an attempt (unless its runner already has: `recorded`) and counts it.
  void record(const Candidate& c, const Built& b, const Measurement& m, const nlohmann::json& hidden, bool measured,
              bool recorded) {
    if (!recorded) {
      const auto t_insert = Clock::now();
      res_.record_ids.push_back(db_.insert(make_record(c, b, m, hidden, measured)));  // ends the claim
      res_.phases_s["record"] += seconds_since(t_insert);
    }
    trial_of_.erase(c.trace_hash);
    ++counts_.trials;
    if (m.ok()) {
      ++counts_.valid;
      if (!best_s_ || m.median_s < *best_s_) best_s_ = m.median_s;
    }
    ++res_.trials_run;
    p_.proposer->observe(c, m, hidden);
    report();
  }

  // Re-measures each of the `confirm_top` fastest traces until it has `confirm_runs`
  // confirmations: ordinary records with strategy kConfirmStrategy and features.confirms =
  // the record re-measured, not counted as trials. Stops at the time limit.
  void confirm() {
    auto past_limit = [&] { return (o_.time_s > 0 && seconds_since(t0_) >= o_.time_s) || interrupted(); };
    // Ranked and counted among this run's thread count: another count's times rank nothing here.
    const std::vector<TraceMeasurements> traces = db_.measurements_by_trace(task_.id, measured_at(o_.threads));
    for (const TraceMeasurements* t : fastest_traces(traces, o_.confirm_top)) {
      const Record& own = *t->own();
      Built b;
      try {
        b = p_.builder->rebuild(own);  // the kernel that record measured
      } catch (const Error&) {
        continue;  // no longer replays, or no longer the same kernel: nothing to confirm
      }
      for (int k = t->confirmations; k < o_.confirm_runs && !past_limit(); ++k) {
        RunContext ctx;
        ctx.best_s = [&] { return best_s_; };
        ctx.out_of_time = past_limit;
        ctx.full_timing = true;
        ctx.done = [&](std::size_t, const Measurement& m, const nlohmann::json&) {
          if (interrupted()) return;
          Record r = own;
          r.id = 0;
          r.set_measurement(m);
          r.strategy = kConfirmStrategy;
          r.features["confirms"] = own.id;
          if (o_.threads > 0) note_measured_threads(r, o_.threads);  // this run's count, not own's
          r.trial = kNextTrial;  // numbered by insert(): other runs may be numbering too
          r.created_at.clear();
          db_.insert(r);
          ++res_.confirmations;
        };
        p_.runner->run({&b}, ctx);
      }
    }
  }

  const Op& op_;
  const TuneOptions& o_;
  Database& db_;
  const TaskInfo& task_;
  Parts& p_;
  std::mt19937_64 rng_;
  int budget_ = 0;
  std::set<std::string> known_;
  TaskCounts counts_;
  TuneResult res_;
  std::optional<double> best_s_;
  bool confirm_ = false;
  double search_s_ = 0;
  const std::string owner_ = new_claim_owner();
  std::map<std::string, std::int64_t> trial_of_;  // this run's claims: trace hash -> trial number
  bool spent_ = false;                            // a claim met the budget (with other runs' claims)
  const Clock::time_point t0_ = Clock::now();
};

}  // namespace

TuneResult run(const Op& op, const TuneOptions& o, Database& db, const TaskInfo& task, Parts& parts) {
  return Loop(op, o, db, task, parts).run();
}

}  // namespace attune::engine
