// attune-rl-eval: the RL agent against the knob-space searches at equal measurement budgets.
//
// For each op (by default the held-out families of bench/workloads/cpu.txt: depthwise,
// grouped, transposed, capsule, conv1d, conv3d) and each strategy, tune() runs with the same
// trial budget on a fresh database; the table gives the best verified GFLOP/s each reached, and
// the last lines the geometric means and their ratios. "rl" uses --policy, "rl-untrained" the
// same agent with random weights. Every number is measured in this run; nothing is cached
// across strategies (each database is new), though compiled objects may be (same source).
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "ir/error.hpp"
#include "search/rl.hpp"
#include "search/tuner.hpp"

namespace {

double geomean(const std::vector<double>& xs) {
  double s = 0;
  for (double x : xs) s += std::log(std::max(x, 1e-9));
  return xs.empty() ? 0 : std::exp(s / static_cast<double>(xs.size()));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attune-rl-eval: RL agent vs evolutionary and random search at equal budgets"};
  std::string policy, db_dir = (std::filesystem::temp_directory_path() / "attune-rl-eval").string();
  std::vector<std::string> ops = {"dep_1", "dep_2", "grp_1", "t2d_1", "t2d_2",
                                  "cap_1", "cap_2", "c1d_1", "c1d_2", "c3d_1"};
  std::vector<std::string> strategies = {"rl", "rl-untrained", "evolutionary", "random"};
  int trials = 200;
  std::uint64_t seed = 0;
  int threads = 0;
  app.add_option("--policy", policy, "trained policy (attune train-policy) for strategy rl");
  app.add_option("--ops", ops, "workload names (comma separated)")->delimiter(',')->capture_default_str();
  app.add_option("--strategies", strategies, "rl, rl-untrained, evolutionary, random")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--trials", trials, "measurements per op and strategy")->capture_default_str();
  app.add_option("--seed", seed, "search seed")->capture_default_str();
  app.add_option("--threads", threads, "threads per candidate (0: all cores)")->capture_default_str();
  app.add_option("--db-dir", db_dir, "where the per-run databases go (replaced)")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  try {
    for (const auto& s : strategies) {
      if (s == "rl" && policy.empty()) throw attune::Error("strategy rl needs --policy");
      // A build without libtorch refuses here, with its reason, before any tuning.
      if ((s == "rl" || s == "rl-untrained") && !attune::rl::agent_available()) attune::rl::Agent{};
    }
    std::filesystem::create_directories(db_dir);
    std::map<std::string, std::vector<double>> gflops;  // per strategy, in op order
    std::printf("%-8s", "op");
    for (const auto& s : strategies) std::printf(" %14s", s.c_str());
    std::printf("   (best GFLOP/s after %d measurements; seconds per run in brackets)\n", trials);
    for (const auto& name : ops) {
      const attune::Op op = attune::op_from_cli(name);
      std::printf("%-8s", name.c_str());
      std::fflush(stdout);
      for (const auto& s : strategies) {
        attune::TuneOptions o;
        o.trials = trials;
        o.seed = seed;
        o.threads = threads;
        o.strategy = s == "rl-untrained" ? "rl" : s;
        o.policy = s == "rl" ? policy : "";
        o.mappings = "off";  // evolutionary and random search the loop-nest space, as the agent does
        o.db_path = db_dir + "/" + name + "_" + s + ".db";
        for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(o.db_path + suffix);
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = attune::tune(op, o);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        gflops[s].push_back(r.best_gflops);
        std::printf(" %8.2f [%3.0f]", r.best_gflops, secs);
        std::fflush(stdout);
      }
      std::printf("\n");
    }
    std::printf("%-8s", "geomean");
    for (const auto& s : strategies) std::printf(" %14.2f", geomean(gflops[s]));
    std::printf("\n");
    auto ratio = [&](const std::string& a, const std::string& b) {
      if (!gflops.count(a) || !gflops.count(b)) return;
      std::printf("%s / %s = %.3f (geomean ratio)\n", a.c_str(), b.c_str(), geomean(gflops[a]) / geomean(gflops[b]));
    };
    ratio("rl", "evolutionary");
    ratio("rl", "rl-untrained");
    ratio("rl", "random");
    ratio("evolutionary", "random");
  } catch (const attune::Error& e) {
    std::cerr << "attune-rl-eval: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
