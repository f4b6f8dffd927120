// attune-bench on one workload at one thread count (attune_bench.hpp): tune it, verify attune's
// kernel and the baselines on the same inputs, and time the verified ones interleaved.
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>

#include "attune_bench.hpp"
#include "bandwidth_probe.hpp"
#include "baselines_blas.hpp"
#include "baselines_dnnl.hpp"
#include "fma_peak.hpp"
#include "interleave.hpp"
#include "ir/error.hpp"
#include "ir/evaluator.hpp"
#include "load_kernel.hpp"
#include "runtime/runtime.hpp"
#include "search/tuner.hpp"

namespace bench {

namespace {

// One database per thread count: "attune-bench.db" -> "attune-bench.t2.db" (still *.db, which
// .gitignore covers), any other name -> "<name>.t2".
std::string db_for_threads(const std::string& db, int threads) {
  const std::string t = ".t" + std::to_string(threads);
  if (db.size() > 3 && db.compare(db.size() - 3, 3, ".db") == 0) return db.substr(0, db.size() - 3) + t + ".db";
  return db + t;
}

// 1. Tune (resumes from this thread count's database).
attune::TuneResult tune_workload(const Workload& w, int threads, const Args& a) {
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
  auto tr = attune::tune(w.op, to);
  std::fprintf(stderr, "  tuned %-13s t=%d: %d trials (%d resumed), %d valid, best %.1f GFLOP/s in the worker\n",
               w.name.c_str(), threads, tr.trials_before + tr.trials_run, tr.trials_before, tr.valid, tr.best_gflops);
  return tr;
}

// What ended a tuning run, after the trials the task has: "300:trials" (the budget), "87:time"
// (the time limit: the engine stops searching a tenth of it, at most 15 s, early to confirm),
// "4:space" (neither: the engine found no untried config), "12:interrupted".
std::string tuning_end(const attune::TuneResult& tr, const Args& a) {
  const double search_s = a.time_s - std::min(0.1 * a.time_s, 15.0);
  const char* why = tr.interrupted                             ? "interrupted"
                    : tr.trials_total >= a.trials              ? "trials"
                    : a.time_s > 0 && tr.elapsed_s >= search_s ? "time"
                                                               : "space";
  return std::to_string(tr.trials_total) + ":" + why;
}

// Bytes a kernel must read and write at least: every buffer it is handed (inputs and output).
double io_bytes(const std::vector<attune::Buffer>& bufs) {
  double b = 0;
  for (const auto& x : bufs) b += double(x.bytes());
  return b;
}

// The baselines that could be set up on `bufs`; a library that could not is noted "ERR".
// row.detail collects what they say they run.
std::vector<Baseline> make_baselines(const Workload& w, const std::vector<attune::Buffer>& bufs, Row& row,
                                     bool& failures) {
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
  add("OpenBLAS", blas_baselines);
  add("oneDNN", dnnl_baselines);
  for (const auto& b : bases)
    if (!b.detail.empty()) row.detail += (row.detail.empty() ? "" : "; ") + b.detail;
  return bases;
}

// 3. Verification. The reference is the evaluator's output, or for the largest ops
// OpenBLAS's (the first baseline), or nothing with --no-check-large; row.check says which.
std::optional<attune::Buffer> expected_output(const attune::Op& op, const std::vector<attune::Buffer>& bufs,
                                              std::vector<Baseline>& bases, const Args& a, Row& row) {
  const bool large = op.macs() >= (std::int64_t{1} << 31);
  std::optional<attune::Buffer> want;
  if (!large || a.check_large) {
    auto ref = bufs;
    attune::evaluate(op, ref);
    want = std::move(ref[op.tensor_index(op.output.tensor)]);
    row.check = "reference";
  } else if (!a.no_check_large && !bases.empty()) {
    bases[0].run();
    want = *bases[0].out;
    row.check = "vs " + bases[0].name;
  } else {
    row.check = "none (large)";
  }
  return want;
}

// Whether `run` writes `want` into `got` (true when there is nothing to compare with).
bool verify(const std::string& workload, const std::string& who, attune::Buffer& got, const std::function<void()>& run,
            const std::optional<attune::Buffer>& want, const std::string& check) {
  if (!want) return true;
  try {
    got.fill_zero();
    run();
    run();  // twice: a kernel that accumulates into its output would double it
  } catch (const std::exception& e) {
    std::fprintf(stderr, "  %s: %s failed to run: %s\n", workload.c_str(), who.c_str(), e.what());
    return false;
  }
  const auto c = attune::compare(got, *want);
  if (!c.ok)
    std::fprintf(stderr, "  %s: %s differs from the %s: %s\n", workload.c_str(), who.c_str(), check.c_str(),
                 c.str().c_str());
  return c.ok;
}

// 4. Interleaved timing of the verified contenders (attune's first when `have_attune`; the
// baselines at `base_idx`), with the FMA-peak loop as one more contender (~5 ms a sample), and
// for the fused group the bandwidth triad too; `bytes` are what the kernels read and write.
void time_interleaved(std::vector<Contender> cs, bool have_attune, const std::vector<std::size_t>& base_idx,
                      const attune::Op& op, double bytes, int threads, const Machine& m, const Args& a, Row& row) {
  const PeakProbe probe = make_peak_probe(threads, m.peak_gflops, 0.005, m.bits);
  const std::size_t pi = cs.size();
  cs.push_back({"fma_peak", [probe] { probe.run(); }});
  const bool fused = row.group == "fused";
  const BandwidthProbe bw = fused ? make_bandwidth_probe(threads, m.bandwidth_gbs, 0.005) : BandwidthProbe{};
  const std::size_t bi = cs.size();
  if (fused) cs.push_back({"bandwidth", [bw] { bw.run(); }});
  InterleaveOptions io;
  io.max_rounds = a.rounds;
  io.min_rounds = std::min(5, a.rounds);
  io.max_seconds = a.measure_s;
  io.settle_s = threads > 1 ? 0.002 : 0;
  const auto res = interleave(cs, io);
  row.rounds = res.rounds();
  row.peak = probe.flops() / res.median_s(pi) / 1e9;
  row.bytes = bytes;
  if (fused) {
    row.bandwidth = bw.bytes() / res.median_s(bi) / 1e9;
    row.memory_bound = op.flops() / bytes < m.peak_gflops / m.bandwidth_gbs;
  }
  double best_t = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < pi; ++i) {
    const double t = res.median_s(i);
    row.seconds[cs[i].name] = t;
    row.gflops[cs[i].name] = attune::gflops_of(op, t);
    row.pct[cs[i].name] = 100 * res.median_speed_fraction(i, op.flops(), pi, probe.flops());
    if (fused) row.bw_pct[cs[i].name] = 100 * res.median_speed_fraction(i, bytes, bi, bw.bytes());
    if (!(have_attune && i == 0) && t < best_t) best_t = t, row.best = cs[i].name;
  }
  if (have_attune) row.ratio = res.median_ratio_vs_best(0, base_idx);
}

}  // namespace

Row bench_one(const Workload& w, int threads, const Machine& m, const Args& a, const attune::Target& target,
              bool& failures) {
  const attune::Op& op = w.op;
  Row row;
  row.name = w.name;
  row.group = group_of(w);
  const auto tr = tune_workload(w, threads, a);
  row.tuned = tuning_end(tr, a);

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
  std::vector<Baseline> bases = make_baselines(w, bufs, row, failures);
  const std::optional<attune::Buffer> want = expected_output(op, bufs, bases, a, row);

  std::vector<Contender> cs;
  if (kernel) {
    if (verify(
            w.name, "attune", bufs[out], [&] { kernel(ptrs.data()); }, want, row.check)) {
      cs.push_back({"attune", [&] { kernel(ptrs.data()); }});
    } else {
      row.note["attune"] = "FAIL";
      failures = true;
    }
  }
  const bool have_attune = !cs.empty();
  std::vector<std::size_t> base_idx;
  for (auto& b : bases) {
    if (verify(w.name, b.name, *b.out, b.run, want, row.check)) {
      base_idx.push_back(cs.size());
      cs.push_back({b.name, b.run});
    } else {
      row.note[b.name] = "FAIL";
      failures = true;
    }
  }
  if (cs.empty()) return row;
  time_interleaved(std::move(cs), have_attune, base_idx, op, io_bytes(bufs), threads, m, a, row);
  return row;
}

}  // namespace bench
