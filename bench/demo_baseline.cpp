// attune-demo-baseline DB [SPEC]: the side-by-side table of `make demo`.
//
// Loads the best kernel `attune tune` stored for SPEC (default: the 512^3 GEMM) on this CPU's
// target, rebuilds it with the target's codegen options and checks that it is the kernel the
// tuner measured (rebuild_recorded: same C, same flags, by hash), checks its output against the
// reference evaluator, then times it interleaved (A B C A B C ..., bench/interleave.hpp) with
// the untransformed loop nest, OpenBLAS, BLIS and oneDNN at the thread count it was tuned for.
// Prints GFLOP/s, ratios to the best library, and the tuner's own figure for the same kernel,
// flagged when the two disagree by more than 25%.
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <thread>
#include <vector>

#include "baselines_blas.hpp"
#include "baselines_dnnl.hpp"
#include "codegen/codegen.hpp"
#include "db/db.hpp"
#include "hw/target.hpp"
#include "interleave.hpp"
#include "ir/error.hpp"
#include "ir/evaluator.hpp"
#include "load_kernel.hpp"
#include "runtime/runtime.hpp"
#include "search/tuner.hpp"
#include "workload.hpp"

namespace {

// The workload line the baselines need: family and parameters of a "gemm:M=..,N=..,K=.." spec.
bench::Workload workload_of(const std::string& spec) {
  bench::Workload w;
  w.name = "demo";
  const auto colon = spec.find(':');
  if (colon == std::string::npos) throw attune::Error("SPEC must be a template, e.g. gemm:M=512,N=512,K=512");
  w.family = spec.substr(0, colon);
  for (std::size_t p = colon + 1; p < spec.size();) {
    const auto comma = std::min(spec.find(',', p), spec.size());
    const std::string kv = spec.substr(p, comma - p);
    const auto eq = kv.find('=');
    if (eq == std::string::npos) throw attune::Error("SPEC: expected key=value, got '" + kv + "'");
    w.params[kv.substr(0, eq)] = kv.substr(eq + 1);
    p = comma + 1;
  }
  w.op = attune::instantiate_template(w.family, w.params);
  return w;
}

}  // namespace

int main(int argc, char** argv) try {
  using namespace attune;
  if (argc < 2 || argc > 3) throw Error("usage: attune-demo-baseline DB [SPEC]");
  const std::string spec = argc > 2 ? argv[2] : "gemm:M=512,N=512,K=512";
  const bench::Workload w = workload_of(spec);
  const Op& op = w.op;
  const Target target = load_target("cpu");
  Database db = Database::open(argv[1], OpenMode::read_only);
  const auto task = db.find_task(canonical_spec(op), target.name);
  if (!task) throw Error("no tuning records for " + spec + " on " + target.name + " in " + argv[1]);
  const auto best = db.best(task->id);
  if (!best) throw Error("no verified kernel for " + spec + " in " + argv[1]);

  // tune() measured with all cores (its default); everyone runs at that count here.
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  omp_set_num_threads(threads);
  bench::blas_set_threads(threads);

  const bench::Kernel tuned = bench::load_kernel(rebuild_recorded(op, target, *best));     // the measured kernel itself
  const bench::Kernel naive = bench::load_kernel(lower(Schedule{}, op, target).artifact);  // the untransformed nest

  auto bufs = make_buffers(op, 7);
  auto want = bufs;
  evaluate(op, want);
  const std::size_t out = static_cast<std::size_t>(op.tensor_index(op.output.tensor));
  std::vector<void*> ptrs;
  for (auto& b : bufs) ptrs.push_back(b.data());

  std::vector<bench::Contender> cs;
  auto check = [&](const std::string& who, Buffer& got, const std::function<void()>& run) {
    got.fill_zero();
    run();
    const auto c = compare(got, want[out]);
    if (!c.ok) throw Error(who + " differs from the reference: " + c.str());
    cs.push_back({who, run});
  };
  check("attune best (verified)", bufs[out], [&] { tuned(ptrs.data()); });
  check("untransformed loop nest", bufs[out], [&] { naive(ptrs.data()); });
  std::vector<bench::Baseline> libs = bench::blas_baselines(w, bufs);
  for (auto& b : bench::dnnl_baselines(w, bufs)) libs.push_back(std::move(b));
  std::vector<std::size_t> lib_index;
  for (auto& b : libs) {
    lib_index.push_back(cs.size());
    check(b.name, *b.out, b.run);
  }

  bench::InterleaveOptions io;
  io.max_rounds = 15;
  io.max_seconds = 6;
  io.settle_s = threads > 1 ? 0.002 : 0;
  const auto res = bench::interleave(cs, io);

  std::size_t best_lib = lib_index.front();
  for (std::size_t i : lib_index)
    if (res.median_s(i) < res.median_s(best_lib)) best_lib = i;
  const double lib_s = res.median_s(best_lib);
  std::printf("%s, %d thread%s, %d interleaved rounds\n", spec.c_str(), threads, threads > 1 ? "s" : "", res.rounds());
  std::printf("%-28s %10s %14s\n", "kernel", "GFLOP/s", ("vs " + cs[best_lib].name).c_str());
  for (std::size_t i = 0; i < cs.size(); ++i)
    std::printf("%-28s %10.1f %13.2fx\n", cs[i].name.c_str(), gflops_of(op, res.median_s(i)), lib_s / res.median_s(i));
  std::printf("attune vs %s, median of per-round ratios: %.2fx; over the untransformed nest: %.1fx\n",
              cs[best_lib].name.c_str(), res.median_ratio_vs_best(0, lib_index), res.median_s(1) / res.median_s(0));

  // The tuner timed this very kernel in its worker process; the two figures should agree.
  const double worker = gflops_of(op, best->median_s), here = gflops_of(op, res.median_s(0));
  const bool apart = std::max(worker, here) > 1.25 * std::min(worker, here);
  std::printf("the tuner's worker measured the same kernel at %.1f GFLOP/s (%s)\n", worker,
              apart ? "MORE THAN 25% AWAY from the figure above: the machine was busy in one of the two runs"
                    : "within 25% of the figure above");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "attune-demo-baseline: error: %s\n", e.what());
  return 1;
}
