// attune-bench: attune's tuned kernels next to the vendor libraries, measured in the same run.
//
// For each workload line and each thread count T it
//   1. tunes the op for T threads with a fixed budget (attune::tune; one database per thread
//      count, X.db -> X.t<T>.db, because the task key is the op alone and a kernel tuned for
//      1 thread is not the one for 2; the databases make a second run resume, not re-tune),
//   2. rebuilds the best verified kernel, dlopens it, and builds the baselines on the same
//      random inputs: OpenBLAS, BLIS, oneDNN, and im2col + OpenBLAS where oneDNN has nothing,
//   3. checks every kernel's output against attune::evaluate (ops of 2^31 MACs and more,
//      where the reference takes tens of seconds: against OpenBLAS's output instead),
//   4. times them interleaved in this process (A B C A B C ..., median of per-round ratios:
//      BASELINES.md) and prints GFLOP/s, % of the FMA peak measured here, and the ratio of
//      attune to the best baseline; then one geomean line per thread count and group.
// It never registers with ctest: tests do not time things.
#include <dlfcn.h>
#include <omp.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "baselines_blas.hpp"
#include "baselines_dnnl.hpp"
#include "codegen/codegen_cpu.hpp"
#include "fma_peak.hpp"
#include "hw/target.hpp"
#include "interleave.hpp"
#include "ir/error.hpp"
#include "ir/evaluator.hpp"
#include "runtime/runtime.hpp"
#include "search/tuner.hpp"
#include "workload.hpp"

namespace {

using bench::Baseline;
using bench::Workload;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Args {
  std::string workloads = ATTUNE_SOURCE_DIR "/bench/workloads/cpu.txt";
  std::vector<std::string> only;
  int trials = 300;
  double time_s = 120;
  std::string db = "attune-bench.db";
  std::vector<int> threads = {1, 2};
  std::uint64_t seed = 0;
  std::string strategy = "evolutionary";
  std::string mappings = "auto";
  std::string target = "host";  // a CPU target: host/cpu, x86-avx2, x86-avx512 or a JSON file
  int rounds = 25;
  double measure_s = 4;
  bool check_large = false;     // run the reference evaluator even on the largest ops
  bool no_check_large = false;  // check nothing on the largest ops
};

// The workload file, parsed like attune's own loader (cli_spec.cpp), but keeping each line's
// family and parameters, which the baselines need.
std::vector<Workload> read_workloads(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw attune::Error("cannot open workload file '" + path + "'");
  std::vector<Workload> ws;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::istringstream ss(line.substr(0, line.find('#')));
    std::vector<std::string> toks;
    for (std::string t; ss >> t;) toks.push_back(t);
    if (toks.empty()) continue;
    const std::string where = path + ":" + std::to_string(n) + ": ";
    if (toks.size() < 2) throw attune::Error(where + "expected 'name op key=value ...'");
    Workload w;
    w.name = toks[0];
    w.family = toks[1];
    for (std::size_t i = 2; i < toks.size(); ++i) {
      const auto eq = toks[i].find('=');
      if (eq == std::string::npos || eq == 0) throw attune::Error(where + "expected key=value, got '" + toks[i] + "'");
      w.params[toks[i].substr(0, eq)] = toks[i].substr(eq + 1);
    }
    try {
      w.op = attune::instantiate_template(w.family, w.params);
    } catch (const attune::Error& e) {
      throw attune::Error(where + e.what());
    }
    w.op.name = w.name;
    ws.push_back(std::move(w));
  }
  return ws;
}

// The groups: GEMM-like lines, the ResNet-50 convolutions, and the rest (gemv included).
std::string group_of(const std::string& name) {
  auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  if (starts("gemm_") || starts("bert_") || starts("bmm_") || name == "rn50_fc_like") return "gemm";
  if (starts("rn50_")) return "conv2d";
  return "other";
}

// One database per thread count: "attune-bench.db" -> "attune-bench.t2.db" (still *.db, which
// .gitignore covers), any other name -> "<name>.t2".
std::string db_for_threads(const std::string& db, int threads) {
  const std::string t = ".t" + std::to_string(threads);
  if (db.size() > 3 && db.compare(db.size() - 3, 3, ".db") == 0) return db.substr(0, db.size() - 3) + t + ".db";
  return db + t;
}

using Kernel = void (*)(void* const*);

Kernel load_kernel(const attune::Artifact& a) {
  static attune::Builder builder;
  const auto r = builder.build(a);
  if (!r.ok) throw attune::Error("build failed: " + r.error);
  void* h = dlopen(r.so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw attune::Error(std::string("dlopen: ") + dlerror());
  auto* k = reinterpret_cast<Kernel>(dlsym(h, a.entry.c_str()));
  if (!k) throw attune::Error("no symbol " + a.entry + " in " + r.so_path);
  return k;
}

struct Row {
  std::string name, group;
  std::map<std::string, double> gflops;     // "attune" and each verified baseline: flops / median time
  std::map<std::string, double> pct;        // % of the FMA peak, median of per-round fractions
  std::map<std::string, std::string> note;  // "FAIL" (wrong output), "ERR" (could not be set up)
  double ratio = kNaN;          // median over rounds of best baseline time / attune time (> 1: attune faster)
  double peak = kNaN;           // the FMA-peak probe's GFLOP/s during this op's rounds
  double worker_gflops = kNaN;  // the tuner's figure for the same kernel, timed in its worker
  std::string best;             // the baseline with the lowest median time
  std::string check;            // what the outputs were compared with
  int rounds = 0;
};

// The tuner's worker and this process timed the same kernel (same C, same flags) more than 25%
// apart: a timing to look into before believing either.
bool kernel_timings_disagree(double worker, double here) {
  return worker > 0 && here > 0 && std::max(worker, here) > 1.25 * std::min(worker, here);
}

std::string cell(const Row& r, const std::string& who) {
  if (auto it = r.note.find(who); it != r.note.end()) return it->second;
  auto it = r.gflops.find(who);
  if (it == r.gflops.end()) return "-";
  char b[64];
  std::snprintf(b, sizeof b, "%.1f (%.0f%%)", it->second, r.pct.at(who));
  return b;
}

// The worker's GFLOP/s for attune's kernel, with "!" when it is more than 25% away from this
// process's figure for the same kernel (the two timings disagree: see the table's legend).
std::string worker_cell(const Row& r) {
  const auto it = r.gflops.find("attune");
  if (std::isnan(r.worker_gflops) || it == r.gflops.end()) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%s", r.worker_gflops,
                kernel_timings_disagree(r.worker_gflops, it->second) ? "!" : "");
  return b;
}

void print_table(int threads, double peak, int bits, const std::vector<Row>& rows) {
  const auto& cols = bench::baseline_columns();
  std::printf(
      "\n== threads=%d  FMA peak %.1f GFLOP/s at start (12 independent %s FMA chains per thread)\n"
      "   cells: GFLOP/s (%% of the peak probe timed in the same rounds); peak: that probe's GFLOP/s;\n"
      "   vs_best: attune / best baseline, median of per-round ratios (> 1: attune faster)\n"
      "   worker: the tuner's GFLOP/s for the same kernel in its worker; '!': over 25%% away from this run's\n",
      threads, peak, bits == 512 ? "zmm" : "ymm");
  std::printf("%-14s %-7s %-14s", "name", "group", "attune");
  for (const auto& c : cols) std::printf(" %-15s", c.c_str());
  std::printf(" %-7s %-6s %-15s %-3s %-9s %s\n", "vs_best", "peak", "best", "rds", "worker", "check");
  for (const auto& r : rows) {
    std::printf("%-14s %-7s %-14s", r.name.c_str(), r.group.c_str(), cell(r, "attune").c_str());
    for (const auto& c : cols) std::printf(" %-15s", cell(r, c).c_str());
    char ratio[32] = "-", pk[32] = "-";
    if (!std::isnan(r.ratio)) std::snprintf(ratio, sizeof ratio, "%.2f", r.ratio);
    if (!std::isnan(r.peak)) std::snprintf(pk, sizeof pk, "%.1f", r.peak);
    std::printf(" %-7s %-6s %-15s %-3d %-9s %s\n", ratio, pk, r.best.empty() ? "-" : r.best.c_str(), r.rounds,
                worker_cell(r).c_str(), r.check.c_str());
  }
  std::fflush(stdout);
}

// Tunes, verifies and times one workload at the current thread count.
Row bench_one(const Workload& w, int threads, double peak, const Args& a, const attune::Target& target,
              bool& failures) {
  const attune::Op& op = w.op;
  Row row;
  row.name = w.name;
  row.group = group_of(w.name);

  // 1. Tune (resumes from this thread count's database).
  attune::TuneOptions to;
  to.trials = a.trials;
  to.time_s = a.time_s;
  to.strategy = a.strategy;
  to.mappings = a.mappings;
  to.db_path = db_for_threads(a.db, threads);
  to.seed = a.seed;
  to.threads = threads;
  to.target = a.target;  // as given: a name or a JSON file, which tune() loads the same way
  to.on_progress = [&](const attune::TuneProgress& p) {
    if (p.trials % 25 == 0)
      std::fprintf(stderr, "  tune %-14s t=%d: %4d trials, %4d valid, best %.1f GFLOP/s, %.0f s\n", w.name.c_str(),
                   threads, p.trials, p.valid, p.best_gflops, p.elapsed_s);
  };
  const auto tr = attune::tune(op, to);
  std::fprintf(stderr, "  tuned %-13s t=%d: %d trials (%d resumed), %d valid, best %.1f GFLOP/s in the worker\n",
               w.name.c_str(), threads, tr.trials_before + tr.trials_run, tr.trials_before, tr.valid, tr.best_gflops);

  // 2. The same random inputs for everyone; the attune kernel writes into bufs' output.
  auto bufs = attune::make_buffers(op, a.seed + 1000);
  const int out = op.tensor_index(op.output.tensor);
  std::vector<void*> ptrs;
  for (auto& b : bufs) ptrs.push_back(b.data());

  Kernel kernel = nullptr;
  if (tr.best) {
    // The measured kernel itself: same C and flags, checked against the record's hash.
    kernel = load_kernel(attune::rebuild_recorded(op, target, *tr.best));
    row.worker_gflops = tr.best_gflops;
  } else {
    std::fprintf(stderr, "  %s t=%d: no verified attune kernel\n", w.name.c_str(), threads);
  }

  std::vector<Baseline> bases;
  auto add = [&](const char* lib, auto&& make) {
    try {
      for (auto& b : make(w, bufs)) bases.push_back(std::move(b));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "  %s: %s baseline unavailable: %s\n", w.name.c_str(), lib, e.what());
      row.note[lib] = "ERR";
      failures = true;
    }
  };
  add("OpenBLAS", bench::blas_baselines);
  add("oneDNN", bench::dnnl_baselines);

  // 3. Verification. The reference is the evaluator's output, or for the largest ops
  // OpenBLAS's (the first baseline), or nothing with --no-check-large.
  const bool large = op.macs() >= (std::int64_t{1} << 31);
  std::optional<attune::Buffer> want;
  if (!large || a.check_large) {
    auto ref = bufs;
    attune::evaluate(op, ref);
    want = std::move(ref[out]);
    row.check = "reference";
  } else if (!a.no_check_large && !bases.empty()) {
    bases[0].run();
    want = *bases[0].out;
    row.check = "vs " + bases[0].name;
  } else {
    row.check = "none (large)";
  }
  auto verify = [&](const std::string& who, attune::Buffer& got, const std::function<void()>& run) {
    if (!want) return true;
    try {
      got.fill_zero();
      run();
      run();  // twice: a kernel that accumulates into its output would double it
    } catch (const std::exception& e) {
      std::fprintf(stderr, "  %s: %s failed to run: %s\n", w.name.c_str(), who.c_str(), e.what());
      return false;
    }
    const auto c = attune::compare(got, *want);
    if (!c.ok)
      std::fprintf(stderr, "  %s: %s differs from the %s: %s\n", w.name.c_str(), who.c_str(), row.check.c_str(),
                   c.str().c_str());
    return c.ok;
  };

  std::vector<bench::Contender> cs;
  if (kernel) {
    if (verify("attune", bufs[out], [&] { kernel(ptrs.data()); })) {
      cs.push_back({"attune", [&] { kernel(ptrs.data()); }});
    } else {
      row.note["attune"] = "FAIL";
      failures = true;
    }
  }
  const bool have_attune = !cs.empty();
  std::vector<std::size_t> base_idx;
  for (auto& b : bases) {
    if (verify(b.name, *b.out, b.run)) {
      base_idx.push_back(cs.size());
      cs.push_back({b.name, b.run});
    } else {
      row.note[b.name] = "FAIL";
      failures = true;
    }
  }
  if (cs.empty()) return row;

  // 4. Interleaved timing, with the FMA-peak loop as one more contender (~5 ms a sample).
  const bench::PeakProbe probe = bench::make_peak_probe(threads, peak, 0.005, attune::cpu_vector_bits(target));
  const std::size_t pi = cs.size();
  cs.push_back({"fma_peak", [probe] { probe.run(); }});
  bench::InterleaveOptions io;
  io.max_rounds = a.rounds;
  io.min_rounds = std::min(5, a.rounds);
  io.max_seconds = a.measure_s;
  io.settle_s = threads > 1 ? 0.002 : 0;
  const auto res = bench::interleave(cs, io);
  row.rounds = res.rounds();
  row.peak = probe.flops() / res.median_s(pi) / 1e9;
  double best_t = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < pi; ++i) {
    const double t = res.median_s(i);
    row.gflops[cs[i].name] = attune::gflops_of(op, t);
    row.pct[cs[i].name] = 100 * res.median_speed_fraction(i, op.flops(), pi, probe.flops());
    if (!(have_attune && i == 0) && t < best_t) best_t = t, row.best = cs[i].name;
  }
  if (have_attune) row.ratio = res.median_ratio_vs_best(0, base_idx);
  return row;
}

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

}  // namespace

int main(int argc, char** argv) try {
  reexec_with_short_spins(argv);
  Args a;
  CLI::App app{"attune-bench: attune's tuned kernels vs OpenBLAS, BLIS and oneDNN, interleaved in one process"};
  app.add_option("--workloads", a.workloads, "workload file")->capture_default_str();
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
  CLI11_PARSE(app, argc, argv);

  auto all = read_workloads(a.workloads);
  std::vector<Workload> ws;
  if (a.only.empty()) {
    ws = all;
  } else {
    for (const auto& n : a.only) {
      auto it = std::find_if(all.begin(), all.end(), [&](const Workload& w) { return w.name == n; });
      if (it == all.end()) throw attune::Error("--only: no workload '" + n + "' in " + a.workloads);
      ws.push_back(*it);
    }
  }
  for (int t : a.threads)
    if (t < 1) throw attune::Error("--threads: thread counts must be >= 1");

  // Which library answers each entry point (BASELINES.md: both BLAS export cblas_sgemm).
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

  // The host's target by default: AVX-512 where the CPU has it (the baselines pick their kernels
  // by the same CPUID bits), and the FMA peak probed at that width. --target x86-avx2 tunes ymm
  // kernels on an AVX-512 CPU too; the baselines still choose for themselves.
  const attune::Target target = attune::load_target(a.target);
  if (target.kind != attune::TargetKind::cpu)
    throw attune::Error("--target: attune-bench measures CPU targets only, not '" + target.name + "'");
  if (const auto why = attune::host_cannot_run(target); !why.empty()) throw attune::Error("--target: " + why);
  std::printf("target: %s (%d-bit vectors)\n", target.name.c_str(), attune::cpu_vector_bits(target));
  bool failures = false;
  std::vector<std::string> summary;
  for (int t : a.threads) {
    omp_set_num_threads(t);  // attune's kernels, BLIS and oneDNN share this libgomp
    bench::blas_set_threads(t);
    const double peak = bench::fma_peak_gflops(t, attune::cpu_vector_bits(target));
    std::vector<Row> rows;
    for (const auto& w : ws) {
      std::fprintf(stderr, "[threads=%d] %s\n", t, w.name.c_str());
      try {
        rows.push_back(bench_one(w, t, peak, a, target, failures));
      } catch (const std::exception& e) {  // one broken line must not lose the others' results
        std::fprintf(stderr, "  %s t=%d: error: %s\n", w.name.c_str(), t, e.what());
        Row r;
        r.name = w.name;
        r.group = group_of(w.name);
        r.check = "error (see stderr)";
        rows.push_back(r);
        failures = true;
      }
    }
    print_table(t, peak, attune::cpu_vector_bits(target), rows);
    for (const char* g : {"gemm", "conv2d", "other"}) {
      std::vector<double> rs;
      bool any = false;
      for (const auto& r : rows)
        if (r.group == g) {
          any = true;
          if (!std::isnan(r.ratio)) rs.push_back(r.ratio);
        }
      if (!any) continue;
      char line[128];
      std::snprintf(line, sizeof line, "threads=%d group=%s geomean_ratio_vs_best=%.2f", t, g, bench::geomean(rs));
      summary.push_back(line);
    }
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
