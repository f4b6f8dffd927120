// The RL agent (search/rl.hpp): action masking, the replay buffer, the max-reward target, policy
// files, the cost model's ordering of schedules, and a tiny training run. Rewards come from the
// deterministic cost model; nothing is timed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>

#include "ir/error.hpp"
#include "schedule/schedule.hpp"
#include "search/rl.hpp"

namespace attune::rl {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("attune_rl_test_" + name)).string();
}

// The agent's own tests need libtorch, which a build may leave out (ATTUNE_WITH_TORCH=OFF).
#define SKIP_WITHOUT_AGENT() \
  if (!agent_available()) GTEST_SKIP() << "built without libtorch (ATTUNE_WITH_TORCH=OFF)"

// Without libtorch, every way to get an agent says so (and why), as a user error.
TEST(RlAgent, WithoutLibtorchEveryUseIsAClearError) {
  if (agent_available()) GTEST_SKIP() << "built with libtorch";
  for (const auto& make : std::vector<std::function<void()>>{[] { Agent a; }, [] { Agent::load("p.pt"); }}) {
    try {
      make();
      FAIL() << "expected an Error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("built without libtorch (ATTUNE_WITH_TORCH=OFF)"), std::string::npos)
          << e.what();
    }
  }
}

TEST(RlEnv, MovesAreTheLegalActionsThenTheTileMacrosThenStop) {
  const Op op = op_from_cli("conv2d:N=1,H=8,W=8,C=4,K=8,R=3,S=3,stride=1,pad=1,layout=NHWC");
  Env env(op);
  const auto legal = legal_actions(env.nest());
  const auto macros = tile_macros(op);
  ASSERT_FALSE(macros.empty());
  const auto& moves = env.moves();
  ASSERT_EQ(moves.size(), legal.size() + macros.size() + 1);
  for (std::size_t i = 0; i < legal.size(); ++i) {
    EXPECT_EQ(moves[i].action, legal[i]);
    EXPECT_FALSE(moves[i].macro);
  }
  for (std::size_t i = 0; i < macros.size(); ++i) {
    const Move& m = moves[legal.size() + i];
    ASSERT_TRUE(m.macro);
    EXPECT_EQ(m.macro->steps, macros[i].steps);
    EXPECT_EQ(*m.next, replay(op, macros[i].steps));
  }
  EXPECT_TRUE(moves.back().stop);
  for (const auto& m : moves) EXPECT_EQ(m.input.size(), static_cast<std::size_t>(kFeatures));

  // A macro is one move; its steps all go on the trace. Afterwards only primitive moves remain.
  env.step(legal.size());
  EXPECT_EQ(env.steps_taken(), 1);
  EXPECT_EQ(env.trace(), macros[0].steps);
  for (const auto& m : env.moves()) EXPECT_FALSE(m.macro);
  // Macros can be switched off.
  Env plain(op, EnvOptions{.macros = false});
  EXPECT_EQ(plain.moves().size(), legal.size() + 1);
}

// Every macro's steps apply one after the other from the untransformed nest, and its register
// tile fits the vector registers.
TEST(RlEnv, TileMacrosAreLegalStepByStep) {
  for (const char* spec :
       {"gemm:M=64,N=64,K=64", "depthwise_conv2d:N=1,H=12,W=12,C=16,R=3,S=3,stride=2,pad=1,layout=NHWC",
        "conv1d:N=1,L=14,C=4,K=8,R=3,stride=2,pad=1",
        "conv2d_capsule:N=1,H=5,W=5,C=2,K=4,R=3,S=3,stride=2,pad=1,capsule=2"}) {
    const Op op = op_from_cli(spec);
    const auto macros = tile_macros(op);
    EXPECT_FALSE(macros.empty()) << spec;
    for (const auto& m : macros) {
      LoopNest nest = initial_nest(op);
      for (const auto& s : m.steps.steps) {
        ASSERT_TRUE(applicable(nest, s).ok) << spec << ": " << s.str();
        nest = apply(nest, s);
      }
      EXPECT_LE(m.row_tile * ((m.vec_tile + 7) / 8), 14) << spec;
    }
  }
}

// Whatever the network says and however much it explores, every move it takes is legal.
TEST(RlAgent, NeverPicksAnIllegalAction) {
  SKIP_WITHOUT_AGENT();
  Agent agent(AgentOptions{.seed = 3});
  std::mt19937_64 rng(5);
  for (const char* spec : {"gemm:M=12,N=16,K=8", "depthwise_conv2d:N=1,H=6,W=6,C=8,R=3,S=3,stride=1,pad=1,layout=NHWC",
                           "conv1d:N=1,L=14,C=4,K=8,R=3,stride=2,pad=1"}) {
    for (double eps : {0.0, 0.5, 1.0}) {
      Env env(op_from_cli(spec), EnvOptions{.max_steps = 12});
      while (!env.done()) {
        const auto& moves = env.moves();
        const std::size_t i = agent.act(moves, eps, rng);
        ASSERT_LT(i, moves.size());
        if (moves[i].macro) {
          LoopNest nest = env.nest();
          for (const auto& s : moves[i].macro->steps.steps) {
            ASSERT_TRUE(applicable(nest, s).ok) << s.str();
            nest = apply(nest, s);
          }
        } else if (!moves[i].stop) {
          const auto legal = legal_actions(env.nest());
          EXPECT_NE(std::find(legal.begin(), legal.end(), moves[i].action), legal.end()) << moves[i].action.str();
          EXPECT_TRUE(applicable(env.nest(), moves[i].action).ok) << moves[i].action.str();
        }
        env.step(i);
      }
      // The trace the episode made replays to the nest it reached.
      EXPECT_EQ(replay(env.op(), env.trace()), env.nest());
    }
  }
}

TEST(RlReplay, KeepsTheNewestAndSamplesWhatItHolds) {
  ReplayBuffer buf(3);
  for (int i = 0; i < 5; ++i) {
    Transition t;
    t.reward = static_cast<float>(i);
    buf.push(t);
  }
  ASSERT_EQ(buf.size(), 3u);
  EXPECT_EQ(buf.at(0).reward, 2.0f);
  EXPECT_EQ(buf.at(2).reward, 4.0f);
  std::mt19937_64 rng(1);
  const auto s = buf.sample(50, rng);
  ASSERT_EQ(s.size(), 50u);
  std::set<float> seen;
  for (const auto* t : s) {
    EXPECT_GE(t->reward, 2.0f);
    seen.insert(t->reward);
  }
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_TRUE(ReplayBuffer(4).sample(3, rng).empty());
}

TEST(RlTarget, IsTheMaxOfRewardAndDiscountedBestNextQ) {
  EXPECT_FLOAT_EQ(q_target(0.5f, false, 0.9f, {0.1f, 1.0f, -2.0f}), 0.9f);  // 0.9 * 1.0 > 0.5
  EXPECT_FLOAT_EQ(q_target(0.95f, false, 0.9f, {0.1f, 1.0f}), 0.95f);       // the reward itself
  EXPECT_FLOAT_EQ(q_target(0.2f, true, 0.9f, {5.0f}), 0.2f);                // done: no bootstrap
  EXPECT_FLOAT_EQ(q_target(-1.0f, false, 0.5f, {-4.0f, -3.0f}), -1.0f);
}

// Agent::targets computes y = max(r, gamma * max_a' Q_target(s', a')) with the target network.
TEST(RlTarget, AgentUsesTheTargetNetwork) {
  SKIP_WITHOUT_AGENT();
  Agent agent(AgentOptions{.gamma = 0.9, .seed = 7});
  Env env(op_from_cli("gemm:M=8,N=16,K=8"));
  const auto& moves = env.moves();
  std::vector<float> next;
  for (std::size_t i = 0; i < 5; ++i) next.insert(next.end(), moves[i].input.begin(), moves[i].input.end());
  Transition a{moves[0].input, -10.0f, false, next};  // reward below any Q: y is the bootstrap
  Transition b{moves[1].input, 0.25f, true, next};
  const auto q_next = agent.q_values(next, true);
  const auto y = agent.targets({&a, &b});
  ASSERT_EQ(y.size(), 2u);
  EXPECT_FLOAT_EQ(y[0], q_target(-10.0f, false, 0.9f, q_next));
  EXPECT_FLOAT_EQ(y[0], 0.9f * *std::max_element(q_next.begin(), q_next.end()));
  EXPECT_FLOAT_EQ(y[1], 0.25f);

  // A gradient step changes the policy network, not the target network, until sync_target().
  const auto before = agent.q_values(next, true);
  for (int i = 0; i < 5; ++i) agent.learn({&a, &b});
  EXPECT_EQ(agent.q_values(next, true), before);
  EXPECT_NE(agent.q_values(next), before);
  agent.sync_target();
  EXPECT_EQ(agent.q_values(next, true), agent.q_values(next));
}

TEST(RlPolicy, SaveLoadGivesIdenticalQValues) {
  SKIP_WITHOUT_AGENT();
  Agent agent(AgentOptions{.hidden = 32, .seed = 11});
  Env env(op_from_cli("conv2d:N=1,H=7,W=6,C=3,K=8,R=3,S=3,stride=2,pad=1,layout=NCHW"));
  std::vector<float> rows;
  for (const auto& m : env.moves()) rows.insert(rows.end(), m.input.begin(), m.input.end());
  // Train a little so the weights are not just the seeded initialisation.
  Transition t{env.moves()[0].input, 1.0f, true, {}};
  for (int i = 0; i < 3; ++i) agent.learn({&t});
  const std::string path = temp_path("policy.pt");
  agent.save(path);
  const Agent loaded = Agent::load(path);
  EXPECT_EQ(loaded.options().hidden, 32);
  EXPECT_EQ(loaded.q_values(rows), agent.q_values(rows));
  EXPECT_EQ(loaded.q_values(rows, true), agent.q_values(rows));
  std::remove(path.c_str());
}

TEST(RlPolicy, LoadingSomethingElseIsAUserError) {
  SKIP_WITHOUT_AGENT();
  const std::string path = temp_path("not_a_policy.pt");
  std::ofstream(path) << "hello";
  try {
    Agent::load(path);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
  EXPECT_THROW(Agent::load(temp_path("missing.pt")), Error);
}

// The cost model orders the textbook steps of a GEMM schedule the way the CPU backend does.
TEST(RlCost, RanksVectorizedRegisterBlockedParallelFaster) {
  const Op op = op_from_cli("gemm:M=64,N=64,K=64");
  const double base = model_seconds(initial_nest(op));
  Trace vec;
  vec.steps = {Transform::split("n", {4, 16}), Transform::reorder({"k", "n.1"}), Transform::vectorize("n.1")};
  const double t_vec = model_seconds(replay(op, vec));
  Trace blocked = vec;
  blocked.steps = {Transform::split("m", {16, 4}),
                   Transform::split("n", {4, 16}),
                   Transform::reorder({"m.0", "n.0", "k", "m.1", "n.1"}),
                   Transform::cache_write("C", "n.0"),
                   Transform::unroll("m.1"),
                   Transform::vectorize("n.1")};
  const double t_blocked = model_seconds(replay(op, blocked));
  Trace par = blocked;
  par.steps.push_back(Transform::parallel("m.0"));
  const double t_par = model_seconds(replay(op, par));
  EXPECT_LT(t_vec, base);
  EXPECT_LT(t_blocked, t_vec);
  EXPECT_LT(t_par, t_blocked);
}

// A short training run on one tiny GEMM: the greedy policy then plays a trace the cost model
// rates faster than the untransformed nest.
TEST(RlTrain, TinyRunImprovesOverTheUntransformedNest) {
  SKIP_WITHOUT_AGENT();
  const Op op = op_from_cli("gemm:M=16,N=32,K=16");
  TrainOptions o;
  o.episodes = 120;
  o.env.max_steps = 6;
  o.learn_start = 64;
  o.target_sync = 50;
  o.seed = 1;
  o.agent.seed = 1;
  o.agent.hidden = 64;
  Agent agent(o.agent);
  const auto r = train(agent, {op}, o);
  EXPECT_EQ(r.episodes, 120);
  const auto g = greedy_rollout(agent, op, o.env);
  EXPECT_GT(g.reward, std::log(1.5)) << trace_to_string(g.trace);
  EXPECT_FALSE(g.trace.steps.empty());
}

}  // namespace
}  // namespace attune::rl
