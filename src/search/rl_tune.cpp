// tune() with strategy "rl": the agent proposes traces, not knob configs.
//
// Every proposal is measured for real by the same Builder and Runner as tune()'s other
// strategies (so each is checked against the reference evaluator), committed to the database
// as it finishes (features {"space": "rl-v2", ...}, strategy "rl"), and skipped on resume when
// its trace is already recorded. The cost model only shapes the agent's features; no
// proposal's fate is decided by it.
//
// The agent keeps learning from the measurements (every measured state is a real reward):
// after each round, every move of every measured episode is a transition whose target is the
// measured reward of the state the episode ended in, log(t_initial / t_measured) with t_initial
// the cost model's time of the untransformed nest scaled by the mean ratio of measured to
// model time (so measured and model rewards share a scale); kOnlineSteps gradient steps on
// batches of them follow. The untransformed nest itself is never measured.
//
// How proposals are made, per round (PerfDojo's max-reward view: keep playing from the best
// program found so far):
//   - the start of each episode is the untransformed nest (always in the first round, then
//     with probability kFromScratch), where the tile macros (rl.hpp) are among the moves, or one of the five fastest measured traces, the faster the likelier;
//   - from there the agent plays up to kExtendSteps moves (at most kMaxTraceSteps in all),
//     choosing by a softmax over its Q values (temperature kTemperature) or, in the very first
//     episode, greedily: the trained policy's own answer is always measured first;
//   - moves into states whose code would expand past kMaxEmitted statements are not taken
//     (they cost minutes of gcc each; cf. the knob space's admissible());
//   - the episode's last state is the proposal; a trace already known is not proposed again.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <climits>
#include <optional>
#include <cmath>
#include <set>
#include <thread>

#include "attune/codegen_cpu.hpp"
#include "attune/codegen_vta.hpp"
#include "attune/error.hpp"
#include "attune/rl.hpp"
#include "attune/runtime.hpp"
#include "attune/target.hpp"
#include "search/progress.hpp"
#include "search/rl_tune.hpp"

namespace attune {

namespace {

constexpr const char* kRlSpaceVersion = "rl-v2";
constexpr int kExtendSteps = 10;
constexpr int kMaxTraceSteps = 40;
constexpr int kTopStarts = 5;
constexpr double kFromScratch = 0.35;
constexpr int kOnlineSteps = 24;   // gradient steps on measured transitions after each round
constexpr std::size_t kOnlineBatch = 32;
constexpr double kTemperature = 0.05;
constexpr std::int64_t kMaxEmitted = 96;  // vector statements written out, see choose()

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Measured {
  Trace trace;
  double time_s = 0;
};

// Index of a move drawn by softmax(Q / temperature), or the argmax when temperature is 0,
// among the moves whose state the code generator would not expand past kMaxEmitted statements
// (`stop` always qualifies).
std::size_t choose(const rl::Agent& agent, const std::vector<rl::Move>& moves, double temperature, int lanes,
                   std::mt19937_64& rng) {
  std::vector<float> rows;
  for (const auto& m : moves) rows.insert(rows.end(), m.input.begin(), m.input.end());
  const auto q = agent.q_values(rows);
  std::vector<bool> ok(moves.size());
  for (std::size_t i = 0; i < moves.size(); ++i)
    ok[i] = moves[i].stop || rl::emitted_statements(*moves[i].next, lanes) <= kMaxEmitted;
  std::size_t best = moves.size() - 1;  // stop
  for (std::size_t i = 0; i < q.size(); ++i)
    if (ok[i] && q[i] > q[best]) best = i;
  if (temperature <= 0) return best;
  std::vector<double> w(q.size());
  for (std::size_t i = 0; i < q.size(); ++i) w[i] = ok[i] ? std::exp((q[i] - q[best]) / temperature) : 0;
  return std::discrete_distribution<std::size_t>(w.begin(), w.end())(rng);
}

struct Proposal {
  Trace trace;
  std::string text, hash;
  double model_s = 0;
  std::vector<std::vector<float>> rows;  // the (state, action) rows of the moves the episode chose
};

// What the agent learns from after each round: the rows of a measured episode's moves and the
// measured time of the state it ended in.
struct MeasuredEpisode {
  std::vector<std::vector<float>> rows;
  double model_s = 0, measured_s = 0;
};

class Proposer {
 public:
  Proposer(const Op& op, const rl::Agent& agent, rl::EnvOptions eo) : op_(op), agent_(agent), eo_(std::move(eo)) {}

  // Up to n traces whose hashes are not in `known` (which it extends).
  std::vector<Proposal> propose(int n, const std::vector<Measured>& pool, std::set<std::string>& known,
                                std::mt19937_64& rng) {
    std::vector<const Measured*> top;
    for (const auto& m : pool) top.push_back(&m);
    std::sort(top.begin(), top.end(), [](auto* a, auto* b) { return a->time_s < b->time_s; });
    if (top.size() > kTopStarts) top.resize(kTopStarts);
    std::uniform_real_distribution<double> u(0, 1);

    std::vector<Proposal> out;
    for (int tries = 0; static_cast<int>(out.size()) < n && tries < n * 20; ++tries) {
      Trace start;
      if (!top.empty() && u(rng) >= kFromScratch) {
        const double x = u(rng);
        start = top[static_cast<std::size_t>(x * x * static_cast<double>(top.size()))]->trace;
      }
      // From scratch: one Env kept for the purpose, so the untransformed nest's moves (the tile
      // macros among them) are computed once.
      std::optional<rl::Env> fresh;
      rl::EnvOptions eo = eo_;
      eo.max_steps = std::min<int>(kMaxTraceSteps, static_cast<int>(start.steps.size()) + kExtendSteps);
      if (start.steps.empty()) {
        if (!scratch_) scratch_.emplace(op_, eo);
        scratch_->reset();
      } else {
        fresh.emplace(op_, eo);
        try {
          fresh->reset_to(start);
        } catch (const Error&) {
          continue;  // a recorded trace this attune no longer replays
        }
      }
      rl::Env& env = fresh ? *fresh : *scratch_;
      const double temperature = first_ ? 0.0 : kTemperature;
      first_ = false;
      Proposal p;
      while (!env.done()) {
        const auto& moves = env.moves();
        if (moves.size() <= 1) break;
        const std::size_t i = choose(agent_, moves, temperature, eo_.cost.lanes, rng);
        if (!moves[i].stop) p.rows.push_back(moves[i].input);
        env.step(i);
      }
      p.trace = env.trace();
      p.text = trace_to_string(p.trace);
      p.hash = content_hash(p.text);
      p.model_s = env.seconds();
      initial_s_ = env.initial_seconds();
      if (!known.insert(p.hash).second) continue;
      out.push_back(std::move(p));
    }
    return out;
  }

  double initial_seconds() const { return initial_s_; }

 private:
  const Op& op_;
  const rl::Agent& agent_;
  rl::EnvOptions eo_;
  bool first_ = true;
  double initial_s_ = 0;
  std::optional<rl::Env> scratch_;
};

// kOnlineSteps gradient steps towards the measured rewards (see the top of the file).
void learn_from_measurements(rl::Agent& agent, const std::vector<MeasuredEpisode>& episodes, double initial_model_s,
                             std::mt19937_64& rng) {
  if (episodes.empty() || initial_model_s <= 0) return;
  double mean_log_ratio = 0;
  for (const auto& e : episodes) mean_log_ratio += std::log(e.measured_s / e.model_s);
  mean_log_ratio /= static_cast<double>(episodes.size());
  std::vector<rl::Transition> ts;
  for (const auto& e : episodes) {
    const float r = static_cast<float>(std::log(initial_model_s / e.measured_s) + mean_log_ratio);
    for (const auto& row : e.rows) ts.push_back(rl::Transition{row, r, true, {}});
  }
  if (ts.empty()) return;
  std::uniform_int_distribution<std::size_t> pick(0, ts.size() - 1);
  for (int k = 0; k < kOnlineSteps; ++k) {
    std::vector<const rl::Transition*> batch;
    for (std::size_t j = 0; j < std::min(kOnlineBatch, ts.size()); ++j) batch.push_back(&ts[pick(rng)]);
    agent.learn(batch);
  }
  agent.sync_target();
}

}  // namespace

TuneResult tune_rl(const Op& op, const TuneOptions& o) {
  if (is_vta_target_arg(o.target)) throw Error("strategy rl tunes loop-nest schedules; VTA targets use knobs (try evolutionary)");
  const Target target = load_target(o.target);
  if (target.kind != TargetKind::cpu)
    throw Error("tuning on target '" + target.name + "' is not available yet: only cpu targets are measured");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = o.threads > 0 ? o.threads : cores;
  const int budget = o.trials > 0 ? o.trials : INT_MAX;

  rl::Agent agent = o.policy.empty() ? rl::Agent(rl::AgentOptions{.seed = o.seed}) : rl::Agent::load(o.policy);
  const std::string policy_name = o.policy.empty() ? "untrained" : o.policy;

  Database db = Database::open(o.db_path, OpenMode::read_write_create);
  const TaskInfo task = db.get_or_create_task(op.name, canonical_spec(op), target.name);
  std::mt19937_64 rng(o.seed);
  Builder builder;
  Runner runner;
  MeasureOptions mo;
  mo.threads = threads;
  mo.seed = o.seed + 1;
  mo.warmup = 1;
  mo.max_seconds = 0.5;
  mo.timeout_s = 30;
  CpuCodegenOptions co;
  co.vector_bits = cpu_vector_bits(target);
  if (!target.compiler_flags.empty()) co.flags = target.compiler_flags;
  rl::EnvOptions eo;
  eo.cost.threads = threads;
  eo.cost.lanes = co.vector_bits / 32;
  Proposer proposer(op, agent, eo);
  std::vector<MeasuredEpisode> measured_episodes;

  // Resume: the measured rl traces are where later episodes start.
  std::vector<Measured> pool;
  for (const auto& r : db.records(task.id)) {
    if (!r.ok() || !r.features.is_object() || r.features.value("space", "") != kRlSpaceVersion) continue;
    try {
      pool.push_back({trace_from_string(r.trace), r.median_s});
    } catch (const Error&) {
    }
  }
  std::set<std::string> known = db.known_trace_hashes(task.id);
  TaskCounts counts = db.counts(task.id);

  TuneResult res;
  res.task_id = task.id;
  res.trials_before = static_cast<int>(counts.trials);
  const auto t0 = Clock::now();
  std::optional<double> best_s;
  if (auto b = db.best(task.id)) best_s = b->median_s;
  const int batch = o.batch > 0 ? o.batch : 2 * cores;

  auto out_of_time = [&] { return o.time_s > 0 && seconds_since(t0) >= o.time_s; };
  auto report = [&] {
    if (o.on_progress)
      o.on_progress(tune_progress(op, o, counts, best_s, seconds_since(t0), res.trials_run, budget));
  };
  auto record = [&](const Proposal& c, const Measurement& m, const std::vector<std::string>& flags) {
    Record r;
    r.task_id = task.id;
    r.trace = c.text;
    r.trace_hash = c.hash;
    r.set_measurement(m);
    r.compile_s = m.compile_s;
    r.features = {{"space", kRlSpaceVersion},
                  {"steps", c.trace.steps.size()},
                  {"model_s", c.model_s},
                  {"policy", policy_name}};
    r.compiler = builder.compiler_info();
    r.flags = flags;
    r.strategy = "rl";
    r.seed = o.seed;
    r.trial = counts.next_trial;
    db.insert(r);
    ++counts.trials;
    ++counts.next_trial;
    ++res.trials_run;
    if (m.ok()) {
      ++counts.valid;
      if (!best_s || m.median_s < *best_s) best_s = m.median_s;
      pool.push_back({c.trace, m.median_s});
    }
    report();
  };

  report();
  int empty_rounds = 0;
  while (counts.trials < budget && !out_of_time()) {
    const int want = static_cast<int>(std::min<long long>(batch, static_cast<long long>(budget) - counts.trials));
    auto props = proposer.propose(want, pool, known, rng);
    if (props.empty()) {
      if (++empty_rounds >= 20) break;  // nothing new reachable
      continue;
    }
    empty_rounds = 0;
    std::vector<Artifact> arts;
    std::vector<std::size_t> built;
    for (std::size_t i = 0; i < props.size(); ++i) {
      try {
        CpuCodegenOptions oc = co;
        oc.trace_json = props[i].text;
        arts.push_back(lower_cpu(replay(op, props[i].trace), oc));
        built.push_back(i);
      } catch (const Error& e) {
        Measurement m;
        m.status = Status::invalid;
        m.error = e.what();
        record(props[i], m, {});
      }
    }
    const auto builds = builder.build_batch(arts);
    for (std::size_t j = 0; j < builds.size(); ++j) {
      if (out_of_time()) break;
      const auto m = runner.measure_batch(op, std::vector<BuildResult>{builds[j]}, mo).at(0);
      ++res.measured;
      const Proposal& p = props[built[j]];
      record(p, m, arts[j].flags);
      if (m.ok() && m.median_s > 0 && p.model_s > 0 && !p.rows.empty())
        measured_episodes.push_back({p.rows, p.model_s, m.median_s});
    }
    learn_from_measurements(agent, measured_episodes, proposer.initial_seconds(), rng);
  }

  res.elapsed_s = seconds_since(t0);
  res.valid = static_cast<int>(counts.valid);
  res.candidates_per_minute = res.elapsed_s > 0 ? res.trials_run * 60.0 / res.elapsed_s : 0;
  res.best = db.best(task.id);
  if (res.best) res.best_gflops = gflops_of(op, res.best->median_s);
  return res;
}

}  // namespace attune
