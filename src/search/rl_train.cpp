// Deep-Q training on the cost model's reward (rl.hpp).
//
// Each episode draws an op, starts from its untransformed nest and plays up to max_steps moves
// epsilon-greedily; every move becomes a transition (input row, reward of the new state, the
// rows of the new state's legal moves) in the replay buffer, and after `learn_start`
// transitions each move is followed by one gradient step on a sampled batch. Epsilon falls
// linearly from epsilon_start to epsilon_end over the first `epsilon_decay` of the episodes.
// Nothing is measured: training costs CPU time for the cost model and the network only.
#include <chrono>
#include <cmath>
#include <deque>

#include "search/rl.hpp"

namespace attune::rl {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::vector<float> flatten_inputs(const std::vector<Move>& moves) {
  std::vector<float> rows;
  rows.reserve(moves.size() * kFeatures);
  for (const auto& m : moves) rows.insert(rows.end(), m.input.begin(), m.input.end());
  return rows;
}
}  // namespace

TrainResult train(Agent& agent, const std::vector<Op>& ops, const TrainOptions& o,
                  const std::function<void(const TrainProgress&)>& on_progress) {
  TrainResult res;
  if (ops.empty()) return res;
  std::mt19937_64 rng(o.seed);
  ReplayBuffer replay(o.replay_capacity);
  std::vector<Env> envs;
  for (const auto& op : ops) envs.emplace_back(op, o.env);
  const auto t0 = Clock::now();
  int learn_steps = 0;
  double loss_sum = 0, reward_sum = 0;
  int loss_n = 0, reward_n = 0;
  std::deque<double> tail;  // final rewards of the last episodes (a tenth of those planned)
  const int decay_episodes = std::max(1, static_cast<int>(o.episodes * o.epsilon_decay));

  for (int ep = 0; ep < o.episodes; ++ep) {
    if (o.time_limit_s > 0 && since(t0) >= o.time_limit_s) break;
    const double eps = ep >= decay_episodes ? o.epsilon_end
                                            : o.epsilon_start + (o.epsilon_end - o.epsilon_start) * ep / decay_episodes;
    Env& env = envs[std::uniform_int_distribution<std::size_t>(0, envs.size() - 1)(rng)];
    env.reset();
    while (!env.done()) {
      const auto& moves = env.moves();
      const std::size_t i = agent.act(moves, eps, rng);
      Transition t;
      t.input = moves[i].input;
      t.reward = static_cast<float>(env.step(i));
      t.done = env.done();
      if (!t.done) t.next_inputs = flatten_inputs(env.moves());
      replay.push(std::move(t));
      ++res.steps;
      if (replay.size() >= static_cast<std::size_t>(o.learn_start)) {
        loss_sum += agent.learn(replay.sample(o.batch, rng));
        ++loss_n;
        if (++learn_steps % o.target_sync == 0) agent.sync_target();
      }
    }
    reward_sum += env.reward();
    ++reward_n;
    tail.push_back(env.reward());
    if (tail.size() > static_cast<std::size_t>(std::max(1, o.episodes / 10))) tail.pop_front();
    ++res.episodes;
    if (on_progress && (ep + 1) % 10 == 0) {
      TrainProgress p;
      p.episode = ep + 1;
      p.episodes = o.episodes;
      p.epsilon = eps;
      p.mean_reward = reward_n ? reward_sum / reward_n : 0;
      p.mean_loss = loss_n ? loss_sum / loss_n : 0;
      p.elapsed_s = since(t0);
      on_progress(p);
      reward_sum = loss_sum = 0;
      reward_n = loss_n = 0;
    }
  }
  res.elapsed_s = since(t0);
  for (double r : tail) res.mean_final_reward += r / static_cast<double>(tail.size());
  return res;
}

Rollout greedy_rollout(const Agent& agent, const Op& op, const EnvOptions& o) {
  Env env(op, o);
  std::mt19937_64 rng(0);
  while (!env.done()) env.step(agent.act(env.moves(), 0.0, rng));
  return {env.trace(), env.reward()};
}

}  // namespace attune::rl
