// The game the agent plays (rl.hpp): states are nests, moves are legal actions plus `stop`,
// and the reward is the cost model's log speedup over the untransformed nest. Also the replay
// buffer and the max-reward target, which the agent and its tests share.
#include <algorithm>
#include <cmath>

#include "ir/error.hpp"
#include "search/rl.hpp"

namespace attune::rl {

Env::Env(const Op& op, EnvOptions o) : op_(op), o_(std::move(o)) { reset(); }

void Env::reset() {
  if (!initial_moves_) {
    nest_ = std::make_shared<const LoopNest>(initial_nest(op_));
    initial_s_ = model_seconds(*nest_, o_.cost);
  } else {
    nest_ = initial_moves_->back().next;  // stop's next: the untransformed nest
  }
  seconds_ = initial_s_;
  trace_ = {};
  steps_ = 0;
  done_ = false;
  moves_.reset();
  if (initial_moves_) moves_ = *initial_moves_;
}

void Env::reset_to(const Trace& t) {
  reset();
  if (t.steps.empty()) return;
  moves_.reset();
  nest_ = std::make_shared<const LoopNest>(replay(op_, t));
  trace_ = t;
  steps_ = static_cast<int>(t.steps.size());
  seconds_ = model_seconds(*nest_, o_.cost);
  done_ = steps_ >= o_.max_steps;
}

double Env::reward() const { return std::log(initial_s_ / seconds_); }

const std::vector<Move>& Env::moves() {
  if (moves_) return *moves_;
  moves_.emplace();
  if (done_) return *moves_;
  const auto state = state_features(*nest_, steps_, o_.max_steps, reward());
  for (auto& a : legal_actions(*nest_, o_.space)) {
    Move m;
    m.next = std::make_shared<const LoopNest>(apply(*nest_, a));
    m.next_s = model_seconds(*m.next, o_.cost);
    const auto af = action_features(*nest_, &a, std::log(seconds_ / m.next_s));
    m.action = std::move(a);
    m.input = state;
    m.input.insert(m.input.end(), af.begin(), af.end());
    moves_->push_back(std::move(m));
  }
  if (trace_.steps.empty() && o_.macros) {
    for (auto& t : tile_macros(op_, o_.cost.vectors)) {
      Move m;
      auto macro = std::make_shared<TileMacro>(std::move(t));
      m.next = std::make_shared<const LoopNest>(replay(op_, macro->steps));
      m.next_s = model_seconds(*m.next, o_.cost);
      const auto af = macro_features(*nest_, *macro, std::log(seconds_ / m.next_s));
      m.action = macro->steps.steps.front();
      m.macro = std::move(macro);
      m.input = state;
      m.input.insert(m.input.end(), af.begin(), af.end());
      moves_->push_back(std::move(m));
    }
  }
  Move stop;
  stop.stop = true;
  stop.next = nest_;
  stop.next_s = seconds_;
  stop.input = state;
  const auto af = action_features(*nest_, nullptr, 0);
  stop.input.insert(stop.input.end(), af.begin(), af.end());
  moves_->push_back(std::move(stop));
  if (trace_.steps.empty() && !initial_moves_) initial_moves_ = std::make_shared<const std::vector<Move>>(*moves_);
  return *moves_;
}

double Env::step(std::size_t i) {
  const auto& ms = moves();
  if (i >= ms.size())
    throw InternalError("rl::Env::step: move " + std::to_string(i) + " of " + std::to_string(ms.size()));
  const Move m = ms[i];
  if (m.stop) {
    done_ = true;
  } else {
    nest_ = m.next;
    seconds_ = m.next_s;
    if (m.macro)
      trace_.steps.insert(trace_.steps.end(), m.macro->steps.steps.begin(), m.macro->steps.steps.end());
    else
      trace_.steps.push_back(m.action);
    done_ = ++steps_ >= o_.max_steps;
  }
  moves_.reset();
  return reward();
}

void ReplayBuffer::push(Transition t) {
  if (capacity_ == 0) return;
  if (items_.size() == capacity_) items_.pop_front();
  items_.push_back(std::move(t));
}

std::vector<const Transition*> ReplayBuffer::sample(std::size_t n, std::mt19937_64& rng) const {
  std::vector<const Transition*> out;
  if (items_.empty()) return out;
  std::uniform_int_distribution<std::size_t> pick(0, items_.size() - 1);
  for (std::size_t i = 0; i < n; ++i) out.push_back(&items_[pick(rng)]);
  return out;
}

float q_target(float reward, bool done, float gamma, const std::vector<float>& next_q) {
  if (done || next_q.empty()) return reward;
  return std::max(reward, gamma * *std::max_element(next_q.begin(), next_q.end()));
}

}  // namespace attune::rl
