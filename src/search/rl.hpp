// search/rl.hpp — the PerfDojo game: a deep-Q agent that plays legal loop-nest transformations.
//
// The environment's state is a loop nest; its actions are legal_actions(nest) (actions.hpp) plus
// `stop`, so an illegal action is never even offered (the mask is the list); at the
// untransformed nest also the tile macros (below), each a legal sequence of those steps. An episode starts
// from the untransformed nest (or from a measured schedule when tuning) and lasts at most
// `max_steps` steps. The reward of a state is its speedup over the untransformed nest,
// log(t_initial / t_state), with t from model_seconds() (an analytic cost model) while training;
// when tuning, every proposed schedule is built and measured for real and the measured rewards
// train the agent further (src/search/rl_proposer.cpp).
//
// The agent scores each legal action with one network, Q(s, a) = net(state(s) ++ action(s, a)),
// so a varying action set needs no fixed output layer. Q follows the max-reward formulation: a
// state's value is the best reward reachable from it, not a sum of gains, so the training target
// is y = max(r, gamma * max over legal a' of Q_target(s', a')) (y = r after `stop`).
//
// Everything here is torch-free; libtorch is confined to src/search/rl_agent.cpp (and optional:
// agent_available() below).
// Tests: tests/search/rl_test.cpp; the actions the agent emits are checked against the reference
// in tests/e2e/rl_actions_test.cpp.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "hw/target.hpp"
#include "schedule/actions.hpp"
#include "schedule/loopnest.hpp"
#include "schedule/transform.hpp"

namespace attune::rl {

// ---- reward: the analytic cost model --------------------------------------------------------

// A rough roofline of the C the CPU backend would emit (rl_cost.cpp says what it counts):
// vector lanes, independent accumulators, strides of every access, loop overhead, parallel
// threads and fork cost. Deterministic, no compiling or timing; meant to rank schedules, not to
// predict absolute times.
struct CostParams {
  int threads = 2;          // cores a parallel loop spreads over
  VectorRegisters vectors;  // the target's lanes and registers (AVX2 by default)
  double ghz = 3.0;
};
double model_seconds(const LoopNest& nest, const CostParams& p = {});
// Statements the code generator writes out: each statement times the extents of the unrolled
// loops around it and the vector chunks of its vectorized loop. Tuning skips states above a
// limit (src/search/rl_proposer.cpp): such bodies take gcc minutes to compile and rarely run faster.
std::int64_t emitted_statements(const LoopNest& nest, int lanes = 8);

// ---- features -------------------------------------------------------------------------------

// State: global summary, then kStateLoops loops of the update nest (outermost first, along the
// path to its first statement), each as kLoopFeatures numbers; then one summary per tensor.
// Action: kind one-hot (+ stop), the named loop's features and depth, the parameter, and the
// cost model's one-step prediction log(t(s) / t(apply(s, a))).
inline constexpr int kLoopFeatures = 12;
inline constexpr int kStateLoops = 10;
inline constexpr int kTensorFeatures = 4;
inline constexpr int kStateTensors = 4;
inline constexpr int kGlobalFeatures = 8;
inline constexpr int kStateFeatures = kGlobalFeatures + kStateLoops * kLoopFeatures + kStateTensors * kTensorFeatures;
inline constexpr int kMacroFeatures = 7;
inline constexpr int kKindSlots = 10;               // one per TransformKind
inline constexpr int kStopSlot = kKindSlots;        // the stop action
inline constexpr int kActionLoop = kKindSlots + 1;  // where the named loop's features start
inline constexpr int kActionFeatures = kActionLoop + kLoopFeatures + 6 + kMacroFeatures;
inline constexpr int kFeatures = kStateFeatures + kActionFeatures;
inline constexpr int kFeatureVersion = 3;  // 3: compute_at and inline (two more kind slots)

// ---- macro moves ----------------------------------------------------------------------------

// A register-tile macro: one move that plays the textbook micro-kernel schedule (rl_macros.cpp)
// from the untransformed nest — split the output's contiguous dimension into a vector tile and
// another spatial dimension into an unrolled row tile, optionally split the largest reduction
// (and hoist its outer part above the tiles), accumulate the tile in a register buffer. Its
// steps are ordinary transformations, each checked by applicable() when played, and the trace
// records the steps, not the macro. Packing and parallel loops are left to the agent's later
// primitive moves.
struct TileMacro {
  std::int64_t vec_tile = 8;  // vector tile of the output's contiguous dimension
  std::string row_var;        // the unrolled spatial dimension ("" when there is none)
  std::int64_t row_tile = 1;
  std::int64_t red_split = 0;  // inner extent of the largest reduction's split (0: none)
  bool red_hoist = false;      // its outer part above the spatial tiles
  bool rows_inside = false;    // the row tile loop inside the vector tile loop
  Trace steps;
};
// Every distinct macro whose steps all apply to the untransformed nest of `op` and whose tile
// fits the register tile's budget (VectorRegisters::accumulators()).
std::vector<TileMacro> tile_macros(const Op& op, VectorRegisters vectors = {});

std::vector<float> state_features(const LoopNest& nest, int step, int max_steps, double log_gain);
// `a` null is `stop`.
std::vector<float> action_features(const LoopNest& nest, const Transform* a, double predicted_gain);
std::vector<float> macro_features(const LoopNest& nest, const TileMacro& m, double predicted_gain);

// ---- environment ----------------------------------------------------------------------------

// One legal move out of a state, with what it leads to (the cost model's view) and the
// network's input row.
struct Move {
  bool stop = false;
  Transform action;                        // when !stop: the primitive move, or a macro's first step
  std::shared_ptr<const TileMacro> macro;  // set for a macro move: its steps all go on the trace
  std::shared_ptr<const LoopNest> next;    // the state it leads to (the same state for stop)
  double next_s = 0;                       // model_seconds(*next)
  std::vector<float> input;                // state_features ++ action_features (kFeatures numbers)
};

struct EnvOptions {
  int max_steps = 16;
  bool macros = true;  // offer tile_macros() at the untransformed nest
  ActionSpace space{};
  CostParams cost{};
};

class Env {
 public:
  explicit Env(const Op& op, EnvOptions o = {});
  // Back to the untransformed nest, or to the nest a trace produces (its steps count as taken).
  void reset();
  void reset_to(const Trace& t);

  // Every legal action at the current state, then (at the untransformed nest, when
  // options().macros) every tile macro, then `stop` (last). Empty once done(). A macro counts
  // as one step towards max_steps.
  const std::vector<Move>& moves();
  // Takes move i of moves(); returns the reward of the new state.
  double step(std::size_t i);

  bool done() const { return done_; }
  double reward() const;  // log(initial_s / current_s)
  const LoopNest& nest() const { return *nest_; }
  const Trace& trace() const { return trace_; }
  int steps_taken() const { return steps_; }
  double seconds() const { return seconds_; }
  double initial_seconds() const { return initial_s_; }
  const Op& op() const { return op_; }
  const EnvOptions& options() const { return o_; }

 private:
  Op op_;
  EnvOptions o_;
  std::shared_ptr<const LoopNest> nest_;
  Trace trace_;
  int steps_ = 0;  // moves taken (a macro is one) or, after reset_to, the trace's steps
  double initial_s_ = 0, seconds_ = 0;
  std::shared_ptr<const std::vector<Move>> initial_moves_;  // the untransformed nest's, computed once
  bool done_ = false;
  std::optional<std::vector<Move>> moves_;  // cached for the current state
};

// ---- replay buffer --------------------------------------------------------------------------

struct Transition {
  std::vector<float> input;        // the chosen (state, action) row
  float reward = 0;                // reward of the state the action led to
  bool done = false;               // stop taken, or the episode's last step
  std::vector<float> next_inputs;  // rows of every legal move of the next state, n x kFeatures
};

class ReplayBuffer {
 public:
  explicit ReplayBuffer(std::size_t capacity) : capacity_(capacity) {}
  void push(Transition t);                                                           // drops the oldest when full
  std::vector<const Transition*> sample(std::size_t n, std::mt19937_64& rng) const;  // with replacement
  std::size_t size() const { return items_.size(); }
  std::size_t capacity() const { return capacity_; }
  const Transition& at(std::size_t i) const { return items_.at(i); }

 private:
  std::size_t capacity_;
  std::deque<Transition> items_;
};

// The max-reward target for one transition: r when done, else max(r, gamma * max(next_q)).
float q_target(float reward, bool done, float gamma, const std::vector<float>& next_q);

// ---- the agent (libtorch behind this interface) ---------------------------------------------

// Whether this build has the agent. libtorch is optional (CMake option ATTUNE_WITH_TORCH); a
// build without it compiles src/search/rl_agent_without_torch.cpp instead, where constructing
// or loading an Agent throws Error("... built without libtorch (ATTUNE_WITH_TORCH=OFF)").
bool agent_available();

struct AgentOptions {
  int hidden = 128;
  double lr = 1e-3;
  double gamma = 0.95;
  std::uint64_t seed = 0;  // network initialisation
};

class Agent {
 public:
  explicit Agent(AgentOptions o = {});
  ~Agent();
  Agent(Agent&&) noexcept;
  Agent& operator=(Agent&&) noexcept;

  // Q of each row (n x kFeatures, flattened) under the policy network (or the target network).
  std::vector<float> q_values(const std::vector<float>& rows, bool target = false) const;
  // Epsilon-greedy over `moves` (never empty): a uniformly random move with probability
  // epsilon, else the one with the highest Q.
  std::size_t act(const std::vector<Move>& moves, double epsilon, std::mt19937_64& rng) const;
  // The targets y of a batch, from the target network.
  std::vector<float> targets(const std::vector<const Transition*>& batch) const;
  // One gradient step (Huber loss) towards targets(batch); returns the loss.
  double learn(const std::vector<const Transition*>& batch);
  void sync_target();  // target network := policy network

  // A policy file: the network's tensors plus hidden size and feature version. Throws Error
  // naming the path when it cannot be written or read, or was made for other features.
  void save(const std::string& path) const;
  static Agent load(const std::string& path);

  const AgentOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- training -------------------------------------------------------------------------------

struct TrainOptions {
  int episodes = 1000;
  EnvOptions env{};
  AgentOptions agent{};
  std::uint64_t seed = 0;
  std::size_t replay_capacity = 4000;
  std::size_t batch = 32;
  int learn_start = 200;  // transitions before the first gradient step
  int target_sync = 250;  // gradient steps between target-network updates
  double epsilon_start = 1.0, epsilon_end = 0.05;
  double epsilon_decay = 0.6;  // share of the episodes over which epsilon falls linearly
  double time_limit_s = 0;     // stop early after this long (0: none)
};

struct TrainProgress {
  int episode = 0, episodes = 0;
  double epsilon = 0;
  double mean_reward = 0;  // mean final reward (log speedup, cost model) of recent episodes
  double mean_loss = 0;
  double elapsed_s = 0;
};

struct TrainResult {
  int episodes = 0;
  int steps = 0;
  double elapsed_s = 0;
  double mean_final_reward = 0;  // over the last episodes run (a tenth of those planned)
};

// Trains `agent` on episodes over `ops` (drawn uniformly) with the cost model's reward.
TrainResult train(Agent& agent, const std::vector<Op>& ops, const TrainOptions& o,
                  const std::function<void(const TrainProgress&)>& on_progress = {});

// A greedy episode (epsilon 0) from the untransformed nest: the trace the policy plays and the
// final cost-model reward.
struct Rollout {
  Trace trace;
  double reward = 0;
};
Rollout greedy_rollout(const Agent& agent, const Op& op, const EnvOptions& o = {});

}  // namespace attune::rl
