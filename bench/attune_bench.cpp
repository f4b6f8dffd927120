// attune-bench: attune's tuned kernels next to the vendor libraries, measured in the same run.
//
// The workloads are bench/workloads/cpu.txt (contractions: groups gemm, conv2d, other) and
// fused.txt (the multi-stage ops of issue 23: group fused) unless --workloads says otherwise.
// For each workload line and each thread count T it
//   1. tunes the op for T threads with a fixed budget (attune::tune; one database per thread
//      count, X.db -> X.t<T>.db, because the task key is the op alone and a kernel tuned for
//      1 thread is not the one for 2; the databases make a second run resume, not re-tune),
//   2. rebuilds the best verified kernel, dlopens it, and builds the baselines on the same
//      random inputs: OpenBLAS, BLIS, oneDNN, and im2col + OpenBLAS where oneDNN has nothing;
//      for the fused group oneDNN's primitives with post-ops (baselines_dnnl_fused.hpp),
//   3. checks every kernel's output against attune::evaluate (ops of 2^31 MACs and more,
//      where the reference takes tens of seconds: against OpenBLAS's output instead),
//   4. times them interleaved in this process (A B C A B C ..., median of per-round ratios:
//      BASELINES.md) and prints GFLOP/s, % of the FMA peak measured here, and the ratio of
//      attune to the best baseline; then one geomean line per thread count and group. The
//      fused group's table gives times per call, and for memory-bound ops the bytes moved per
//      second as a share of a bandwidth triad timed in the same rounds (bandwidth_probe.hpp).
// It never registers with ctest: tests do not time things. attune_bench.hpp lists its parts.
#include <omp.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "attune_bench.hpp"
#include "bandwidth_probe.hpp"
#include "baselines_blas.hpp"
#include "baselines_dnnl.hpp"
#include "fma_peak.hpp"
#include "hw/target.hpp"
#include "ir/error.hpp"
#include "json_out.hpp"

namespace {

using bench::Args;
using bench::Machine;
using bench::Row;
using bench::Workload;

// Idle library workers spin after a call (OpenBLAS's pool for 2^28 cycles, ~0.1 s, by default;
// libgomp for 300000 spins), and on a 2-core machine a spinning thread halves the next kernel's
// core. Shorter spins (OpenBLAS 2^22 cycles, ~1.5 ms; libgomp 30000 spins) plus a 2 ms pause
// between samples (interleave.hpp) keep the libraries out of each other's way. OpenBLAS reads
// its variable while loading, before main, hence the re-exec; a variable already set wins.
void reexec_with_short_spins(char** argv) {
  if (std::getenv("ATTUNE_BENCH_REEXEC")) return;
  setenv("ATTUNE_BENCH_REEXEC", "1", 1);
  setenv("OPENBLAS_THREAD_TIMEOUT", "22", 0);
  if (!std::getenv("OMP_WAIT_POLICY")) setenv("GOMP_SPINCOUNT", "30000", 0);
  execv("/proc/self/exe", argv);  // returns only on failure: then run as we are
}

// The command line into `a`; the exit status when the program should stop here (--help, or
// an option it cannot read).
std::optional<int> parse_args(int argc, char** argv, Args& a) {
  CLI::App app{"attune-bench: attune's tuned kernels vs OpenBLAS, BLIS and oneDNN, interleaved in one process"};
  app.add_option("--workloads", a.workloads, "comma-separated workload files")->delimiter(',')->capture_default_str();
  app.add_option("--only", a.only, "comma-separated workload names to run (default: all)")->delimiter(',');
  app.add_option("--trials", a.trials, "tuning trials per op and thread count (resumed from the db)")
      ->capture_default_str();
  app.add_option("--time", a.time_s, "tuning time limit per op and thread count, seconds")->capture_default_str();
  app.add_option("--db", a.db, "database; one per thread count: X.db -> X.t<T>.db (resumable)")->capture_default_str();
  app.add_option("--threads", a.threads, "comma-separated thread counts")->delimiter(',')->capture_default_str();
  app.add_option("--seed", a.seed, "tuning and input seed")->capture_default_str();
  app.add_option("--strategy", a.strategy, "search strategy")->capture_default_str();
  app.add_option("--mappings", a.mappings, "search mappings onto the target's intrinsics too (attune tune --mappings)")
      ->check(CLI::IsMember({"auto", "on", "off", "only"}))
      ->capture_default_str();
  app.add_option("--target", a.target,
                 "CPU target to tune for: host (AVX-512 where the CPU has it, else AVX2), x86-avx2, x86-avx512")
      ->capture_default_str();
  app.add_option("--rounds", a.rounds, "most interleaved timing rounds per op")->capture_default_str();
  app.add_option("--measure-time", a.measure_s, "timing seconds per op (after 5 rounds)")->capture_default_str();
  auto* cl = app.add_flag("--check-large", a.check_large, "run the reference evaluator on ops of >= 2^31 MACs too");
  app.add_flag("--no-check-large", a.no_check_large, "check nothing on ops of >= 2^31 MACs")->excludes(cl);
  app.add_option("--json-out", a.json_out, "also write the results as JSON Lines (for attune report --bench)");
  CLI11_PARSE(app, argc, argv);
  return std::nullopt;
}

// The workload files' lines that --only names (all without it), in --only's order.
std::vector<Workload> selected_workloads(const Args& a) {
  auto all = bench::read_all_workloads(a.workloads);
  if (a.only.empty()) return all;
  std::vector<Workload> ws;
  for (const auto& n : a.only) {
    auto it = std::find_if(all.begin(), all.end(), [&](const Workload& w) { return w.name == n; });
    if (it == all.end()) throw attune::Error("--only: no workload '" + n + "' in the --workloads files");
    ws.push_back(*it);
  }
  return ws;
}

// Which library answers each entry point (BASELINES.md: both BLAS export cblas_sgemm), and the
// spin settings the libraries run with.
void check_and_print_libraries() {
  const std::string ob = bench::symbol_origin("cblas_sgemm"), bl = bench::symbol_origin("bli_sgemm");
  std::printf("OpenBLAS: cblas_sgemm from %s\nBLIS:     bli_sgemm from %s\n%s\n", ob.c_str(), bl.c_str(),
              bench::dnnl_version().c_str());
  if (ob.find("openblas") == std::string::npos)
    throw attune::Error("cblas_sgemm resolves to " + ob + ", not OpenBLAS: fix the link order");
  if (bl.find("blis") == std::string::npos) throw attune::Error("bli_sgemm resolves to " + bl + ", not BLIS");
  auto env = [](const char* k) {
    const char* v = std::getenv(k);
    return v ? v : "-";
  };
  std::printf("env: OPENBLAS_THREAD_TIMEOUT=%s GOMP_SPINCOUNT=%s OMP_WAIT_POLICY=%s\n", env("OPENBLAS_THREAD_TIMEOUT"),
              env("GOMP_SPINCOUNT"), env("OMP_WAIT_POLICY"));
  std::fflush(stdout);
}

// The host's target by default: AVX-512 where the CPU has it (the baselines pick their kernels
// by the same CPUID bits), and the FMA peak probed at that width. --target x86-avx2 tunes ymm
// kernels on an AVX-512 CPU too; the baselines still choose for themselves.
attune::Target bench_target(const Args& a) {
  attune::Target target = attune::load_target(a.target);
  if (target.kind != attune::TargetKind::cpu)
    throw attune::Error("--target: attune-bench measures CPU targets only, not '" + target.name + "'");
  if (const auto why = attune::host_cannot_run(target); !why.empty()) throw attune::Error("--target: " + why);
  std::printf("target: %s (%d-bit vectors)\ncpu: %s\n", target.name.c_str(), attune::cpu_vector_bits(target),
              bench::cpu_model().c_str());
  return target;
}

// The tuning budget, which every group shares.
void print_budget(const Args& a) {
  std::printf(
      "tuning budget per op and thread count: %d trials or %g s, whichever ends first (trials resumed from\n"
      "the database count)\n",
      a.trials, a.time_s);
}

// The FMA peak at `threads` threads, and the memory bandwidth where a fused workload will
// compare with it (the triad's arrays take 384 MiB or more).
Machine probe_machine(int threads, int bits, const std::vector<Workload>& ws) {
  Machine m;
  m.bits = bits;
  m.peak_gflops = bench::fma_peak_gflops(threads, bits);
  if (std::any_of(ws.begin(), ws.end(), [](const Workload& w) { return bench::group_of(w) == "fused"; }))
    m.bandwidth_gbs = bench::memory_bandwidth_gbs(threads);
  return m;
}

// Every workload at `threads` threads; a workload that fails is a row that says so.
std::vector<Row> bench_all(const std::vector<Workload>& ws, int threads, const Machine& m, const Args& a,
                           const attune::Target& target, bool& failures) {
  std::vector<Row> rows;
  for (const auto& w : ws) {
    std::fprintf(stderr, "[threads=%d] %s\n", threads, w.name.c_str());
    try {
      rows.push_back(bench::bench_one(w, threads, m, a, target, failures));
    } catch (const std::exception& e) {  // one broken line must not lose the others' results
      std::fprintf(stderr, "  %s t=%d: error: %s\n", w.name.c_str(), threads, e.what());
      Row r;
      r.name = w.name;
      r.group = bench::group_of(w);
      r.check = "error (see stderr)";
      rows.push_back(r);
      failures = true;
    }
  }
  return rows;
}

// The JSON Lines of --json-out (src/report/bench_data.hpp lists the fields).
nlohmann::json header_json(const Args& a, const attune::Target& target, int argc, char** argv) {
  nlohmann::json h = bench::header_line("attune-bench.header", argc, argv);
  h["cpu"] = bench::cpu_model();
  h["target"] = target.name;
  h["vector_bits"] = attune::cpu_vector_bits(target);
  h["trials"] = a.trials;
  h["time_s"] = a.time_s;
  h["strategy"] = a.strategy;
  h["threads"] = a.threads;
  return h;
}

nlohmann::json machine_json(int threads, const Machine& m) {
  return {{"kind", "attune-bench.machine"},
          {"threads", threads},
          {"bits", m.bits},
          {"peak_gflops", bench::number_or_null(m.peak_gflops)},
          {"bandwidth_gbs", bench::number_or_null(m.bandwidth_gbs)}};
}

nlohmann::json row_json(int threads, const Row& r) {
  auto numbers = [](const std::map<std::string, double>& m) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : m) j[k] = bench::number_or_null(v);
    return j;
  };
  return {{"kind", "attune-bench.row"},
          {"threads", threads},
          {"name", r.name},
          {"group", r.group},
          {"gflops", numbers(r.gflops)},
          {"pct_of_peak", numbers(r.pct)},
          {"seconds", numbers(r.seconds)},
          {"pct_of_bandwidth", numbers(r.bw_pct)},
          {"note", r.note},
          {"ratio", bench::number_or_null(r.ratio)},
          {"best", r.best},
          {"bytes", r.bytes},
          {"memory_bound", r.memory_bound},
          {"check", r.check},
          {"tuned", r.tuned},
          {"rounds", r.rounds}};
}

}  // namespace

int main(int argc, char** argv) try {
  reexec_with_short_spins(argv);
  Args a;
  if (const auto exit_code = parse_args(argc, argv, a)) return *exit_code;

  const std::vector<Workload> ws = selected_workloads(a);
  for (int t : a.threads)
    if (t < 1) throw attune::Error("--threads: thread counts must be >= 1");
  check_and_print_libraries();
  const attune::Target target = bench_target(a);
  bench::JsonLines json(a.json_out);
  json.write(header_json(a, target, argc, argv));
  print_budget(a);
  bool failures = false;
  std::vector<std::string> summary;
  for (int t : a.threads) {
    omp_set_num_threads(t);  // attune's kernels, BLIS and oneDNN share this libgomp
    bench::blas_set_threads(t);
    const Machine m = probe_machine(t, attune::cpu_vector_bits(target), ws);
    json.write(machine_json(t, m));
    const std::vector<Row> rows = bench_all(ws, t, m, a, target, failures);
    for (const Row& r : rows) json.write(row_json(t, r));
    bench::print_table(t, m, rows);
    for (auto& line : bench::group_summaries(t, rows)) summary.push_back(std::move(line));
  }
  std::printf("\n");
  for (const auto& s : summary) std::printf("%s\n", s.c_str());
  if (failures)
    std::fprintf(stderr, "attune-bench: some kernels failed verification or could not be set up (see above)\n");
  return failures ? 1 : 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "attune-bench: error: %s\n", e.what());
  return 1;
}
