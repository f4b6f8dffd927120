// attune-tuning-efficiency: how many measurements each search strategy needs (ML²Tuner's
// evaluation). For every workload x strategy x seed it tunes with a fixed budget into its own
// database (kept in --dir, so a second invocation reuses finished runs and resumes cut ones),
// then prints
//   - per workload: each strategy's median final best, invalid attempts, and the measurements
//     ml2 needs to reach the baseline's final best;
//   - samples_fraction: median over workloads of (per-workload median over seeds of) the
//     measurements ml2 needs to reach the baseline's final best of the same seed, divided by the
//     baseline's measurements (its budget); a run that never reaches it counts 1.0;
//   - invalid_reduction: 1 - invalid measurements of ml2 / those of the baseline, summed over
//     all runs (the strict figure, counting ml2's compile-stage failures too, is printed beside);
//   - model quality on held-out configs: pairwise accuracy, peak@1, peak@5 of P and A, V's
//     precision and recall;
//   - a closing line: target=T samples_fraction=X.XX invalid_reduction=Y.YY
// The VTA target's times are simulated cycles (deterministic); CPU times are measured, so the
// CPU comparison accepts a best within --tol of the target.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

#include "codegen/codegen_vta.hpp"
#include "efficiency_runs.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "json_out.hpp"
#include "model_quality.hpp"
#include "report/provenance.hpp"
#include "transfer_protocol.hpp"
#include "search/tuner.hpp"

namespace fs = std::filesystem;
using namespace attune;
using namespace attune::bench;

namespace {

struct Args {
  std::string target = "vta";
  std::string workloads;
  std::vector<std::string> only;
  std::vector<std::string> strategies;
  std::string baseline;
  std::string candidate = "ml2";
  int seeds = 5;
  int trials = 300;
  int jobs = 0;
  int threads = 0;
  double tol = -1;
  std::string dir = "tuning-efficiency";
  std::string json_out;  // --json-out: the results as JSON Lines too (json_out.hpp)
  std::string protocol = "baseline";  // or "leave-one-family-out" (transfer_protocol.hpp)
  std::vector<std::string> held_out, train;
  int train_trials = 100;
  bool warm = false;  // the candidate starts from the baseline's runs on the other workloads
};

std::string db_path_for(const Args& a, const std::string& workload, const std::string& strategy, int seed) {
  std::string t = a.target;
  std::replace(t.begin(), t.end(), ':', '_');
  std::replace(t.begin(), t.end(), '/', '_');
  return a.dir + "/" + t + "/" + workload + "." + strategy + ".s" + std::to_string(seed) + ".db";
}

struct Job {
  const Op* op;
  std::string strategy;
  int seed;
  std::string db;
};

using RunsByWorkload = std::map<std::string, std::map<std::string, std::vector<Run>>>;  // workload -> strategy -> seeds

// The candidate against the baseline over every (workload, seed) pair where the baseline found
// something: the invalid counts are summed, the fractions of measurements kept per workload.
struct CandidateVsBaseline {
  std::vector<double> layer_fraction;  // per workload: median over seeds of the candidate's fraction
  long inv_c = 0, inv_b = 0, inv_c_strict = 0, inv_b_strict = 0;
  int never = 0, pairs = 0;
};

// The ops the cross-task models learn from by default: two or more of each family the held-out
// ops belong to (so the other held-out op's family is there), and one or two of every other
// family of cpu.txt. Eight ops of four families (the first pool) taught a held-out convolution
// little: the transfer A's pick among a held-out op's seeds reached 0.83 of that op's best
// (median over leaving out each op's family) with these fifteen.
std::vector<std::string> default_training_pool() {
  return {"gemm_256", "bert_qkv",   "rn50_fc_like", "bmm_128", "attn_scores", "bmm_512_32", "rn50_c3_3x3", "rn50_c4_3x3",
          "rn18_nhwc_1x1", "c1d_1", "c1d_2", "c3d_1", "t2d_1", "dep_1", "cap_1"};
}

std::string default_workloads(bool vta) {
  return std::string(ATTUNE_SOURCE_DIR) + "/bench/workloads/" + (vta ? "vta.txt" : "cpu.txt");
}

// The command line into `a`; the exit status when the program should stop here (--help, or
// an option it cannot read).
std::optional<int> parse_args(int argc, char** argv, Args& a) {
  CLI::App app{"attune-tuning-efficiency: measurements per strategy to reach a baseline's best (ML²Tuner)"};
  app.add_option("--target", a.target, "vta, vta:CONFIG or a CPU target (cpu)")->capture_default_str();
  app.add_option("--workloads", a.workloads, "workload file (default: vta.txt for vta, cpu.txt otherwise)");
  app.add_option("--only", a.only, "workload names (default: all for vta, gemm_512,rn50_c2_3x3 for cpu)")
      ->delimiter(',');
  app.add_option("--strategies", a.strategies,
                 "strategies to run (default: random,evolutionary,xgb,ml2 for vta; random,ml2 for cpu)")
      ->delimiter(',');
  app.add_option("--baseline", a.baseline, "strategy ml2 is compared with (default: xgb for vta, random for cpu)");
  app.add_option("--seeds", a.seeds, "seeds per strategy")->capture_default_str();
  app.add_option("--trials", a.trials, "attempts per run")->capture_default_str();
  app.add_option("--jobs", a.jobs, "runs at once (default: cores for vta, 1 for cpu: CPU runs time kernels)");
  app.add_option("--threads", a.threads, "threads per CPU kernel (default: all cores)");
  app.add_option("--tol", a.tol, "relative slack when comparing bests (default: 0 for vta, 0.02 for cpu)");
  app.add_option("--dir", a.dir, "where the run databases are kept (finished runs are reused)")->capture_default_str();
  app.add_option("--json-out", a.json_out, "also write the results as JSON Lines (for attune report --bench)");
  app.add_flag("--warm", a.warm,
               "the candidate (ml2) starts each workload from the cross-task models of the baseline's runs on "
               "every other workload with the same seed (leave one out), in databases of its own");
  app.add_option("--protocol", a.protocol,
                 "baseline: ml2 against a baseline strategy; leave-one-family-out: the cross-task models on ops of "
                 "a family they never saw (ml2 warm vs evolutionary and random cold, and zero-shot)")
      ->check(CLI::IsMember({"baseline", "leave-one-family-out"}))
      ->capture_default_str();
  app.add_option("--held-out", a.held_out, "leave-one-family-out: the ops evaluated (default: gemm_512,rn50_c2_3x3)")
      ->delimiter(',');
  std::string pool_names;
  for (const auto& n : default_training_pool()) pool_names += (pool_names.empty() ? "" : ",") + n;
  app.add_option("--train", a.train,
                 "leave-one-family-out: the ops the models learn from (default: " + pool_names + ")")
      ->delimiter(',');
  app.add_option("--train-trials", a.train_trials, "leave-one-family-out: attempts per training op")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  return std::nullopt;
}

// What the options leave open, chosen for the target: VTA's simulated runs are cheap and exact,
// CPU runs time kernels (one at a time, fewer workloads and strategies, some slack). The
// baseline and the candidate always run; an unknown strategy fails here, not mid-run.
void apply_target_defaults(Args& a, bool vta) {
  if (a.workloads.empty()) a.workloads = default_workloads(vta);
  if (a.only.empty() && !vta) a.only = {"gemm_512", "rn50_c2_3x3"};
  if (a.strategies.empty())
    a.strategies = vta ? std::vector<std::string>{"random", "evolutionary", "xgb", "ml2"}
                       : std::vector<std::string>{"random", "ml2"};
  if (a.baseline.empty()) a.baseline = vta ? "xgb" : "random";
  if (a.tol < 0) a.tol = vta ? 0.0 : 0.02;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (a.jobs <= 0) a.jobs = vta ? cores : 1;
  for (const auto& s : {a.baseline, a.candidate})
    if (std::find(a.strategies.begin(), a.strategies.end(), s) == a.strategies.end()) a.strategies.push_back(s);
  for (const auto& s : a.strategies) make_strategy(s);
}

// The leave-one-family-out protocol's arguments, with its defaults for what is not given.
LeaveOneFamilyOut loo_args(const Args& a, bool vta) {
  LeaveOneFamilyOut l;
  l.target = a.target;
  l.workloads = a.workloads.empty() ? default_workloads(vta) : a.workloads;
  l.held_out = a.held_out.empty() ? std::vector<std::string>{"gemm_512", "rn50_c2_3x3"} : a.held_out;
  l.train = a.train.empty() ? default_training_pool() : a.train;
  l.train_trials = a.train_trials;
  l.trials = a.trials;
  l.seeds = a.seeds;
  l.threads = a.threads;
  l.dir = a.dir;
  return l;
}

std::vector<Op> selected_ops(const Args& a) {
  std::vector<Op> ops;
  for (auto& op : load_workload_file(a.workloads))
    if (a.only.empty() || std::find(a.only.begin(), a.only.end(), op.name) != a.only.end()) ops.push_back(op);
  if (ops.empty()) throw Error("no workloads selected from " + a.workloads);
  return ops;
}

// Runs the jobs, a.jobs at once, each into its own database (a finished one is reused, a cut one
// resumed); throws the last failure once all have run.
void run_jobs(const std::vector<Job>& jobs, const Args& a) {
  std::map<std::string, double> wall;  // db -> seconds
  std::mutex mu;
  std::atomic<std::size_t> next{0}, done{0};
  std::string failure;
  auto worker = [&] {
    for (std::size_t i; (i = next++) < jobs.size();) {
      const Job& j = jobs[i];
      const auto t0 = std::chrono::steady_clock::now();
      try {
        TuneOptions o;
        o.target = a.target;
        o.trials = a.trials;
        o.strategy = j.strategy;
        o.db_path = j.db;
        o.seed = static_cast<std::uint64_t>(j.seed);
        o.threads = a.threads;
        o.mappings = "off";  // every strategy searches the same (loop-nest) space
        const auto r = tune(*j.op, o);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::lock_guard lock(mu);
        wall[j.db] = s;
        std::printf("[%zu/%zu] %-12s %-12s seed %d: %d new attempts, best %.4g ms, %.1f s\n", ++done, jobs.size(),
                    j.op->name.c_str(), j.strategy.c_str(), j.seed, r.trials_run, r.best ? r.best->median_s * 1e3 : 0.0,
                    s);
        std::fflush(stdout);
      } catch (const std::exception& e) {
        std::lock_guard lock(mu);
        failure = j.db + ": " + e.what();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < a.jobs; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (!failure.empty()) throw Error(failure);
}

// One workload's seeds: the measurements the candidate needs to reach the baseline's final best,
// as a fraction of the baseline's budget (fr; never reaching it counts 1.0) and of what the
// baseline took to first reach it (fr_first); the invalid counts go into `cmp`.
void compare_seeds(std::map<std::string, std::vector<Run>>& by, const Args& a, CandidateVsBaseline& cmp,
                   std::vector<double>& fr, std::vector<double>& fr_first) {
  for (int s = 0; s < a.seeds; ++s) {
    const Run& b = by[a.baseline][s];
    const Run& c = by[a.candidate][s];
    const double target = b.final_best();
    if (target <= 0) continue;
    ++cmp.pairs;
    const auto n = c.measurements_to_reach(target, a.tol);
    if (!n) ++cmp.never;
    const double cn = n ? *n : std::max(1, c.measurements());
    fr.push_back(std::min(1.0, cn / std::max(1, b.measurements())));
    const auto bfirst = b.measurements_to_reach(target, 0);
    fr_first.push_back(cn / std::max(1, bfirst.value_or(1)));
    cmp.inv_c += c.invalid_measured();
    cmp.inv_b += b.invalid_measured();
    cmp.inv_c_strict += c.invalid_attempts();
    cmp.inv_b_strict += b.invalid_attempts();
  }
}

// Per strategy, medians over seeds: final best, invalid attempts, invalid measurements, and the
// measurements to reach the baseline's final best of the same seed.
void print_strategy_rows(const Op& op, std::map<std::string, std::vector<Run>>& by, const Args& a,
                         ::bench::JsonLines& json) {
  for (const auto& s : a.strategies) {
    std::vector<double> best, inv, invm, reach;
    for (int k = 0; k < a.seeds; ++k) {
      const Run& r = by[s][k];
      best.push_back(r.final_best() * 1e3);
      inv.push_back(r.invalid_attempts());
      invm.push_back(r.invalid_measured());
      const double target = by[a.baseline][k].final_best();
      const auto n = r.measurements_to_reach(target, a.tol);
      reach.push_back(n ? *n : std::nan(""));
    }
    std::printf("%-12s %-13s %12.4g %9.1f %9.1f %9.0f\n", op.name.c_str(), s.c_str(), median_of_known(best), median_of_known(inv),
                median_of_known(invm), median_of_known(reach));
    json.write({{"kind", "tuning-efficiency.strategy"},
                {"workload", op.name},
                {"strategy", s},
                {"seeds", a.seeds},
                {"best_ms", ::bench::number_or_null(median_of_known(best))},
                {"invalid", ::bench::number_or_null(median_of_known(inv))},
                {"invalid_measured", ::bench::number_or_null(median_of_known(invm))},
                {"to_baseline", ::bench::number_or_null(median_of_known(reach))}});
  }
}

// The per-workload table, and the candidate's comparison with the baseline it sums up.
CandidateVsBaseline compare_strategies(const std::vector<Op>& ops, RunsByWorkload& runs, const Args& a,
                                       ::bench::JsonLines& json) {
  std::printf("\n%-12s %-13s %12s %9s %9s %9s\n", "workload", "strategy", "best ms(med)", "invalid", "inv.meas",
              "to-base");
  CandidateVsBaseline cmp;
  for (const auto& op : ops) {
    auto& by = runs[op.name];
    std::vector<double> fr, fr_first;
    compare_seeds(by, a, cmp, fr, fr_first);
    print_strategy_rows(op, by, a, json);
    cmp.layer_fraction.push_back(median_of_known(fr));
    std::printf(
        "%-12s %s needs %.1f%% of %s's measurements (median over seeds; %.2fx the measurements %s "
        "took to first reach its own final best)\n",
        op.name.c_str(), a.candidate.c_str(), 100 * cmp.layer_fraction.back(), a.baseline.c_str(), median_of_known(fr_first),
        a.baseline.c_str());
  }
  return cmp;
}

// The cost models trained on 70% of each workload's distinct configs (all strategies' runs)
// and scored on the rest, per workload and on average.
void print_model_quality(const std::vector<Op>& ops, RunsByWorkload& runs, bool vta, ::bench::JsonLines& json) {
  std::printf("\nmodel quality on held-out configs (30%% of each workload's distinct configs; mean over workloads)\n");
  std::vector<double> pp, ap, p1, a1, p5, a5, vp, vr;
  for (const auto& op : ops) {
    std::vector<const Run*> all;
    for (const auto& [s, rs] : runs[op.name])
      for (const auto& r : rs) all.push_back(&r);
    const auto q = held_out_quality(all, vta ? "vta" : "cpu");
    if (!q.ok) continue;
    std::printf(
        "  %-12s train %4d test %4d (valid %4d): pairwise P %.3f A %.3f | peak@1 P %.3f A %.3f | "
        "peak@5 P %.3f A %.3f | V precision %.3f recall %.3f\n",
        op.name.c_str(), q.train_rows, q.test_rows, q.test_valid, q.p_pairwise, q.a_pairwise, q.p_peak1, q.a_peak1,
        q.p_peak5, q.a_peak5, q.v_precision, q.v_recall);
    json.write({{"kind", "tuning-efficiency.quality"},
                {"workload", op.name},
                {"train_rows", q.train_rows},
                {"test_rows", q.test_rows},
                {"p_pairwise", ::bench::number_or_null(q.p_pairwise)},
                {"a_pairwise", ::bench::number_or_null(q.a_pairwise)},
                {"p_peak1", ::bench::number_or_null(q.p_peak1)},
                {"a_peak1", ::bench::number_or_null(q.a_peak1)},
                {"p_peak5", ::bench::number_or_null(q.p_peak5)},
                {"a_peak5", ::bench::number_or_null(q.a_peak5)},
                {"v_precision", ::bench::number_or_null(q.v_precision)},
                {"v_recall", ::bench::number_or_null(q.v_recall)}});
    pp.push_back(q.p_pairwise);
    ap.push_back(q.a_pairwise);
    p1.push_back(q.p_peak1);
    a1.push_back(q.a_peak1);
    p5.push_back(q.p_peak5);
    a5.push_back(q.a_peak5);
    if (q.v_precision == q.v_precision) vp.push_back(q.v_precision);
    if (q.v_recall == q.v_recall) vr.push_back(q.v_recall);
  }
  auto mean = [](const std::vector<double>& v) {
    return v.empty() ? std::nan("") : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  std::printf(
      "  mean: pairwise P %.3f A %.3f | peak@1 P %.3f A %.3f | peak@5 P %.3f A %.3f | V precision %.3f "
      "recall %.3f\n",
      mean(pp), mean(ap), mean(p1), mean(a1), mean(p5), mean(a5), mean(vp), mean(vr));
}

// The comparison's totals, then the closing line scripts read.
void print_closing(const CandidateVsBaseline& cmp, const Args& a, const std::string& target_name,
                   ::bench::JsonLines& json) {
  const double samples_fraction = median_of_known(cmp.layer_fraction);
  const double invalid_reduction =
      cmp.inv_b > 0 ? 1.0 - static_cast<double>(cmp.inv_c) / static_cast<double>(cmp.inv_b) : std::nan("");
  const double strict = cmp.inv_b_strict > 0
                            ? 1.0 - static_cast<double>(cmp.inv_c_strict) / static_cast<double>(cmp.inv_b_strict)
                            : std::nan("");
  std::printf(
      "\n%s vs %s over %d (workload, seed) pairs: reached the baseline's best in %d; invalid measured %ld vs "
      "%ld; invalid attempts incl. %s's compile-stage failures %ld vs %ld (reduction %.2f)\n",
      a.candidate.c_str(), a.baseline.c_str(), cmp.pairs, cmp.pairs - cmp.never, cmp.inv_c, cmp.inv_b,
      a.candidate.c_str(), cmp.inv_c_strict, cmp.inv_b_strict, strict);
  std::printf("target=%s samples_fraction=%.2f invalid_reduction=%.2f\n", target_name.c_str(), samples_fraction,
              invalid_reduction);
  json.write({{"kind", "tuning-efficiency.summary"},
              {"target", target_name},
              {"baseline", a.baseline},
              {"candidate", a.candidate},
              {"pairs", cmp.pairs},
              {"reached", cmp.pairs - cmp.never},
              {"samples_fraction", ::bench::number_or_null(samples_fraction)},
              {"invalid_reduction", ::bench::number_or_null(invalid_reduction)},
              {"invalid_reduction_strict", ::bench::number_or_null(strict)}});
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (const auto exit_code = parse_args(argc, argv, a)) return *exit_code;

  try {
    const bool vta = is_vta_target_arg(a.target);
    if (a.protocol == "leave-one-family-out") return run_leave_one_family_out(loo_args(a, vta));
    apply_target_defaults(a, vta);
    const std::vector<Op> ops = selected_ops(a);
    const std::string target_name = tuning_target_name(a.target);
    ::bench::JsonLines json(a.json_out);
    nlohmann::json header = ::bench::header_line("tuning-efficiency.header", argc, argv);
    header.update({{"target", target_name},
                   {"cpu", report::this_machine()},
                   {"seeds", a.seeds},
                   {"trials", a.trials},
                   {"strategies", a.strategies},
                   {"baseline", a.baseline},
                   {"candidate", a.candidate}});
    json.write(header);

    std::vector<Job> jobs, warm_jobs;
    for (const auto& op : ops)
      for (const auto& s : a.strategies)
        for (int seed = 1; seed <= a.seeds; ++seed) {
          if (a.warm && s == a.candidate)
            warm_jobs.push_back({&op, s, seed, db_path_for(a, op.name, s + "-warm", seed)});
          else
            jobs.push_back({&op, s, seed, db_path_for(a, op.name, s, seed)});
        }
    fs::create_directories(fs::path(jobs.front().db).parent_path());
    std::printf(
        "tuning-efficiency: target %s, %zu workloads x %zu strategies x %d seeds, %d attempts each, "
        "%d at once, databases in %s\n",
        target_name.c_str(), ops.size(), a.strategies.size(), a.seeds, a.trials, a.jobs, a.dir.c_str());
    std::fflush(stdout);
    run_jobs(jobs, a);
    if (a.warm) {
      // Each warm database: the baseline's records of every other workload, same seed.
      for (const auto& j : warm_jobs) {
        if (fs::exists(j.db)) continue;
        const std::string tmp = j.db + ".building";
        fs::remove(tmp);
        {
          Database d = Database::open(tmp);
          for (const auto& other : ops)
            if (other.name != j.op->name) copy_records(db_path_for(a, other.name, a.baseline, j.seed), d);
        }
        fs::rename(tmp, j.db);
      }
      run_jobs(warm_jobs, a);
      jobs.insert(jobs.end(), warm_jobs.begin(), warm_jobs.end());
    }

    // ---- report ----
    RunsByWorkload runs;
    for (const auto& j : jobs) runs[j.op->name][j.strategy].push_back(read_run(j.db, j.op->name, j.strategy, j.seed));
    const CandidateVsBaseline cmp = compare_strategies(ops, runs, a, json);
    print_model_quality(ops, runs, vta, json);
    print_closing(cmp, a, target_name, json);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attune-tuning-efficiency: %s\n", e.what());
    return 1;
  }
}
