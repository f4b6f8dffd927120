// The legality property for the RL agent's moves: episodes played through rl::Env (the agent's
// action space, legal_actions() under the agent's default ActionSpace) on every op family are
// lowered, built, run and compared with the reference evaluator. Moves are drawn kind first
// (uniformly among the kinds with a legal move, `stop` excluded), so every transformation kind
// the agent can emit is exercised — the test checks that each kind occurred, the tile macros
// (rl.hpp) counting as one more kind — and the greedy episode of a (random-weight) agent is
// checked too.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <set>

#include "codegen/codegen_cpu.hpp"
#include "runtime/runtime.hpp"
#include "schedule/schedule.hpp"
#include "search/rl.hpp"

namespace attune {
namespace {

const char* const kSpecs[] = {
    "gemm:M=19,N=24,K=13",
    "gemm:M=8,N=16,K=9,epilogue=bias_relu",
    "batch_matmul:B=2,M=5,N=8,K=7",
    "conv1d:N=1,L=14,C=4,K=8,R=3,stride=2,pad=1",
    "conv2d:N=1,H=7,W=6,C=3,K=8,R=3,S=3,stride=2,pad=1,layout=NCHW",
    "conv2d:N=1,H=6,W=6,C=8,K=8,R=3,S=3,stride=1,pad=1,groups=2,layout=NHWC",
    "depthwise_conv2d:N=1,H=7,W=7,C=8,R=3,S=3,stride=2,pad=1,layout=NHWC",
    "conv3d:N=1,D=4,H=5,W=5,C=3,K=8,T=3,R=3,S=3,stride=1,pad=1,layout=NDHWC",
    "conv2d_transpose:N=1,H=3,W=3,C=4,K=8,R=4,S=4,stride=2,pad=1,layout=NHWC",
    "conv2d_capsule:N=1,H=5,W=5,C=2,K=4,R=3,S=3,stride=2,pad=1,capsule=2",
    // Multi-stage ops: compute_at and inline are theirs.
    "softmax:B=2,M=3,N=19",
    "layernorm:M=5,N=24",
    "attention:H=2,T=5,D=3",
};

// One episode of up to `steps` moves, kind first (the tile macros count as one more kind, -1),
// or when `macro_first` a random tile macro first. Counts the macro moves it took in `macros`.
Trace kind_balanced_episode(const Op& op, int steps, std::mt19937_64& rng, bool macro_first, int& macros) {
  rl::Env env(op, rl::EnvOptions{.max_steps = steps});
  while (!env.done()) {
    std::map<int, std::vector<std::size_t>> by_kind;
    const auto& moves = env.moves();
    for (std::size_t i = 0; i < moves.size(); ++i)
      if (!moves[i].stop) by_kind[moves[i].macro ? -1 : static_cast<int>(moves[i].action.kind)].push_back(i);
    if (by_kind.empty()) break;
    auto it = by_kind.begin();
    if (macro_first && env.steps_taken() == 0 && by_kind.count(-1))
      it = by_kind.find(-1);
    else
      std::advance(it, std::uniform_int_distribution<std::size_t>(0, by_kind.size() - 1)(rng));
    const std::size_t i = it->second[std::uniform_int_distribution<std::size_t>(0, it->second.size() - 1)(rng)];
    macros += moves[i].macro ? 1 : 0;
    env.step(i);
  }
  return env.trace();
}

TEST(RlActions, EveryKindTheAgentEmitsEqualsTheReference) {
  static Builder builder;
  std::set<TransformKind> kinds;
  std::mt19937_64 rng(8);
  // The untrained agent's greedy episodes join the kind-balanced ones where this build has it
  // (libtorch is optional).
  std::optional<rl::Agent> agent;
  if (rl::agent_available()) agent.emplace(rl::AgentOptions{.seed = 2});
  int macros = 0;
  for (const char* spec : kSpecs) {
    const Op op = op_from_cli(spec);
    std::vector<Trace> traces;
    for (int i = 0; i < 5; ++i) traces.push_back(kind_balanced_episode(op, 12, rng, i < 2, macros));
    if (agent) traces.push_back(rl::greedy_rollout(*agent, op, rl::EnvOptions{.max_steps = 12}).trace);
    std::vector<Artifact> arts;
    for (const auto& t : traces) {
      for (const auto& s : t.steps) kinds.insert(s.kind);
      CpuCodegenOptions o;
      o.trace_json = trace_to_string(t);
      arts.push_back(lower_cpu(replay(op, t), o));
    }
    const auto builds = builder.build_batch(arts);
    const auto ms = measure_batch(op, builds, MeasureOptions::correctness_only(2));
    for (std::size_t i = 0; i < ms.size(); ++i)
      EXPECT_TRUE(ms[i].ok()) << spec << ": " << status_name(ms[i].status) << " for " << trace_to_string(traces[i])
                              << ": " << ms[i].error.substr(0, 600);
  }
  for (TransformKind k : all_transform_kinds())
    EXPECT_TRUE(kinds.count(k)) << "no episode emitted " << transform_kind_name(k);
  EXPECT_GE(macros, 10) << "too few episodes played a tile macro";
}

}  // namespace
}  // namespace attune
