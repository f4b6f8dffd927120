// cmd_train_policy.cpp — `attune train-policy --workloads FILE --out POLICY`: trains the RL
// agent (search/rl.hpp) on the ops of a workload file with the cost model's reward, printing
// progress, and saves the policy for `attune tune SPEC --strategy rl --policy POLICY`.
//
// --families and --skip choose the training ops (e.g. only the gemm and conv2d lines, minus a
// held-out one); nothing is compiled or timed, so training runs on the CPU only.
#include <CLI/CLI.hpp>

#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "cli/cli_common.hpp"
#include "hw/target.hpp"
#include "ir/error.hpp"
#include "search/rl.hpp"
#include "search/tuner.hpp"

namespace attune::cli {

namespace {

struct TrainArgs {
  std::string workloads;
  std::string target = "cpu";
  std::string out;
  int episodes = 1000;
  std::vector<std::string> families;  // empty: every line
  std::vector<std::string> skip;      // op names left out
  int max_steps = 16;
  int threads = 0;
  std::uint64_t seed = 0;
  double time_s = 0;
};

// The ops of a workload file whose family (second column) is in `families` and whose name is
// not in `skip`. Each line is parsed by op_from_cli (so errors name the line).
std::vector<Op> training_ops(const TrainArgs& a) {
  std::ifstream in(a.workloads);
  if (!in) throw Error(a.workloads + ": cannot read workload file");
  const std::set<std::string> fam(a.families.begin(), a.families.end()), skip(a.skip.begin(), a.skip.end());
  std::vector<Op> ops;
  std::string line;
  while (std::getline(in, line)) {
    const std::string text = line.substr(0, line.find('#'));
    std::istringstream words(text);
    std::string name, family;
    if (!(words >> name >> family)) continue;
    if ((!fam.empty() && !fam.count(family)) || skip.count(name)) continue;
    ops.push_back(op_from_cli(text));
  }
  if (ops.empty()) throw Error(a.workloads + ": no workload line matches --families/--skip");
  return ops;
}

int run_train(const TrainArgs& a) {
  if (a.episodes <= 0) throw Error("--episodes must be positive, got " + std::to_string(a.episodes));
  if (a.max_steps <= 0) throw Error("--max-steps must be positive, got " + std::to_string(a.max_steps));
  const Target target = load_target_arg(a.target);
  if (target.kind != TargetKind::cpu) throw Error("train-policy: only cpu targets, got '" + target.name + "'");
  rl::TrainOptions o;
  o.episodes = a.episodes;
  o.seed = a.seed;
  o.agent.seed = a.seed;
  o.time_limit_s = a.time_s;
  o.env.max_steps = a.max_steps;
  o.env.cost.threads = effective_threads(a.threads);
  o.env.cost.vectors = cpu_vector_registers(target);
  rl::Agent agent(o.agent);  // first: a build without libtorch refuses here, before any work

  const auto ops = training_ops(a);
  std::cerr << "train-policy: " << ops.size() << " ops:";
  for (const auto& op : ops) std::cerr << " " << op.name;
  std::cerr << std::endl;
  const auto r = rl::train(agent, ops, o, [](const rl::TrainProgress& p) {
    if (p.episode % 50 != 0 && p.episode != p.episodes) return;
    std::cerr << "train-policy: episode " << p.episode << "/" << p.episodes << ", epsilon " << fixed(p.epsilon, 2)
              << ", mean reward " << fixed(p.mean_reward, 3) << " (x" << fixed(std::exp(p.mean_reward), 2)
              << " model speedup), loss " << fixed(p.mean_loss, 4) << ", " << format_duration(p.elapsed_s) << " elapsed"
              << std::endl;
  });
  agent.save(a.out);

  std::cout << "episodes  " << r.episodes << " (" << r.steps << " moves) in " << format_duration(r.elapsed_s) << "\n"
            << "reward    " << fixed(r.mean_final_reward, 3)
            << " mean log model speedup over the last 10% of episodes\n";
  std::cout << "greedy    model speedup of the trained policy's own trace per op:\n";
  for (const auto& op : ops) {
    const auto g = rl::greedy_rollout(agent, op, o.env);
    std::cout << "  " << op.name << "  x" << fixed(std::exp(g.reward), 2) << "  " << g.trace.steps.size() << " steps\n";
  }
  std::cout << "policy    " << a.out << std::endl;
  return 0;
}

}  // namespace

void add_train_policy_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<TrainArgs>();
  auto* sub = app.add_subcommand("train-policy", "Train the RL agent's policy on a workload file (cost-model reward)");
  sub->add_option("--workloads", args->workloads, "workload file (name family key=value ...)")->required();
  sub->add_option("--out", args->out, "policy file to write")->required();
  sub->add_option("--target", args->target, "cpu target whose vector width the cost model assumes")
      ->capture_default_str();
  sub->add_option("--episodes", args->episodes, "training episodes")->capture_default_str();
  sub->add_option("--families", args->families, "only these families (second column), e.g. gemm conv2d")
      ->delimiter(',');
  sub->add_option("--skip", args->skip, "leave out these op names")->delimiter(',');
  sub->add_option("--max-steps", args->max_steps, "moves per episode")->capture_default_str();
  sub->add_option("--threads", args->threads, "cores the cost model assumes (0: all)")->capture_default_str();
  sub->add_option("--seed", args->seed, "training seed")->capture_default_str();
  sub->add_option("--time", args->time_s, "stop training after this many seconds");
  sub->callback([&action, args] { action = [args] { return run_train(*args); }; });
}

}  // namespace attune::cli
