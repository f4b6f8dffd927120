// The engine's Proposer for strategy "rl" (engine.hpp): the RL agent proposes traces, not
// knob configs. Its proposals are built, measured, checked, recorded, cut off when hopeless
// and confirmed by the same engine as every other strategy (features {"space": "rl-v2", ...},
// strategy "rl"); a trace already recorded is never proposed again. The cost model only
// shapes the agent's features; no proposal's fate is decided by it.
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
//     with probability kFromScratch), where the tile macros (rl.hpp) are among the moves, or one of the five fastest
//     measured traces, the faster the likelier;
//   - from there the agent plays up to kExtendSteps moves (at most kMaxTraceSteps in all),
//     choosing by a softmax over its Q values (temperature kTemperature) or, in the very first
//     episode, greedily: the trained policy's own answer is always measured first;
//   - moves into states whose code would expand past kMaxEmitted statements are not taken
//     (they cost minutes of gcc each; cf. the knob space's admissible());
//   - the episode's last state is the proposal; a trace already known is not proposed again.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "codegen/codegen_cpu.hpp"
#include "hw/target.hpp"
#include "ir/error.hpp"
#include "search/engine.hpp"
#include "search/rl.hpp"

namespace attune {

namespace {

constexpr const char* kRlSpaceVersion = "rl-v2";
constexpr int kExtendSteps = 10;
constexpr int kMaxTraceSteps = 40;
constexpr int kTopStarts = 5;
constexpr double kFromScratch = 0.35;
constexpr int kOnlineSteps = 24;  // gradient steps on measured transitions after each round
constexpr std::size_t kOnlineBatch = 32;
constexpr double kTemperature = 0.05;
constexpr std::int64_t kMaxEmitted = 96;  // vector statements written out, see choose()

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

class EpisodePlayer {
 public:
  EpisodePlayer(const Op& op, const rl::Agent& agent, rl::EnvOptions eo) : op_(op), agent_(agent), eo_(std::move(eo)) {}

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
        const std::size_t i = choose(agent_, moves, temperature, eo_.cost.vectors.lanes, rng);
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

class RlProposer : public engine::Proposer {
 public:
  RlProposer(const Op& op, rl::Agent agent, std::string policy_name, const rl::EnvOptions& eo,
             std::vector<Measured> pool)
      : agent_(std::move(agent)),
        policy_name_(std::move(policy_name)),
        player_(op, agent_, eo),
        pool_(std::move(pool)) {}

  std::string strategy() const override { return "rl"; }

  std::vector<engine::Candidate> propose(int n, const std::set<std::string>& known, std::mt19937_64& rng) override {
    std::set<std::string> seen = known;
    std::vector<engine::Candidate> out;
    for (auto& p : player_.propose(n, pool_, seen, rng)) {
      engine::Candidate c;
      c.trace_text = p.text;
      c.trace_hash = p.hash;
      c.features = {{"space", kRlSpaceVersion},
                    {"steps", p.trace.steps.size()},
                    {"model_s", p.model_s},
                    {"policy", policy_name_}};
      c.tag = next_tag_++;
      pending_.emplace(c.tag, std::move(p));
      out.push_back(std::move(c));
    }
    return out;
  }

  // Every measured state is a real reward: it joins the pool episodes start from, and the
  // episode that reached it is learnt from after the round.
  void observe(const engine::Candidate& c, const Measurement& m, const nlohmann::json&) override {
    const auto it = pending_.find(c.tag);
    if (it == pending_.end()) return;
    const Proposal& p = it->second;
    if (m.ok() && m.median_s > 0) {
      pool_.push_back({p.trace, m.median_s});
      if (p.model_s > 0 && !p.rows.empty()) episodes_.push_back({p.rows, p.model_s, m.median_s});
    }
    pending_.erase(it);
  }

  void unmeasured(const engine::Candidate& c) override { pending_.erase(c.tag); }

  void end_round(std::mt19937_64& rng) override {
    learn_from_measurements(agent_, episodes_, player_.initial_seconds(), rng);
  }

 private:
  rl::Agent agent_;
  std::string policy_name_;
  EpisodePlayer player_;
  std::vector<Measured> pool_;  // measured traces, where episodes may start
  std::vector<MeasuredEpisode> episodes_;
  std::map<std::int64_t, Proposal> pending_;  // proposed, not yet recorded
  std::int64_t next_tag_ = 0;
};

}  // namespace

namespace engine {

std::unique_ptr<Proposer> make_rl_proposer(const Op& op, const Target& target, int threads, const std::string& policy,
                                           std::uint64_t seed, Database& db, const TaskInfo& task) {
  rl::Agent agent = policy.empty() ? rl::Agent(rl::AgentOptions{.seed = seed}) : rl::Agent::load(policy);
  rl::EnvOptions eo;
  eo.cost.threads = threads;
  eo.cost.vectors = cpu_vector_registers(target);
  // Resume: the measured rl traces are where later episodes start.
  std::vector<Measured> pool;
  for (const auto& r : db.records(task.id)) {
    if (!r.ok() || !r.features.is_object() || r.features.value("space", "") != kRlSpaceVersion) continue;
    try {
      pool.push_back({trace_from_string(r.trace), r.median_s});
    } catch (const Error&) {
    }
  }
  return std::make_unique<RlProposer>(op, std::move(agent), policy.empty() ? "untrained" : policy, eo, std::move(pool));
}

}  // namespace engine

}  // namespace attune
