// attune-demo-baseline DB: the side-by-side table of `make demo`. Loads the best kernel that
// `attune tune` stored for the 512^3 GEMM, rebuilds it, checks it against the reference, and
// times it interleaved (A B C A B C ...) with the untransformed loop nest and OpenBLAS in this
// process, so all three see the same machine state. Prints GFLOP/s and ratios.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

#include "attune/codegen_cpu_tensorize.hpp"
#include "attune/codegen_cpu.hpp"
#include "attune/db.hpp"
#include "attune/error.hpp"
#include "attune/evaluator.hpp"
#include "attune/runtime.hpp"
#include "attune/target.hpp"
#include "attune/tuner.hpp"

extern "C" {
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float* a, int lda,
                 const float* b, int ldb, float beta, float* c, int ldc);
void openblas_set_num_threads(int);
}

namespace {

using Kernel = void (*)(void* const*);

Kernel load(const attune::Artifact& a) {
  static attune::Builder builder;
  const auto r = builder.build(a);
  if (!r.ok) throw attune::Error("build failed: " + r.error);
  void* h = dlopen(r.so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw attune::Error(std::string("dlopen: ") + dlerror());
  return reinterpret_cast<Kernel>(dlsym(h, "attune_kernel"));
}

double time_once(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) try {
  using namespace attune;
  if (argc < 2) throw Error("usage: attune-demo-baseline DB");
  const Op op = op_from_cli("gemm:M=512,N=512,K=512");
  const Target target = load_target("cpu");
  Database db = Database::open(argv[1], OpenMode::read_only);
  const auto task = db.find_task(canonical_spec(op), target.name);
  if (!task) throw Error("no tuned 512^3 GEMM in " + std::string(argv[1]));
  const auto best = db.best(task->id);
  if (!best) throw Error("no verified kernel for the 512^3 GEMM in " + std::string(argv[1]));

  CpuCodegenOptions co;
  co.flags = target.compiler_flags;
  const Kernel tuned = load(lower_cpu_recorded(op, target, best->trace, co));
  const Kernel naive = load(lower_cpu(initial_nest(op), co));

  auto bufs = make_buffers(op, 7);
  auto want = bufs;
  evaluate(op, want);
  std::vector<void*> ptrs;
  for (auto& b : bufs) ptrs.push_back(b.data());
  const float* A = bufs[0].as<float>();
  const float* B = bufs[1].as<float>();
  float* C = bufs[2].as<float>();

  auto check = [&](const char* who) {
    const auto c = compare(bufs[2], want[2]);
    if (!c.ok) throw Error(std::string(who) + " differs from the reference: " + c.str());
  };
  tuned(ptrs.data());
  check("attune's kernel");
  // All cores, like the tuned kernel (tuned with OpenMP's default thread count).
  openblas_set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  cblas_sgemm(101, 111, 111, 512, 512, 512, 1.0f, A, 512, B, 512, 0.0f, C, 512);
  check("OpenBLAS");

  std::vector<double> tn, to, tt;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(6);
  for (int round = 0; round < 50 && (round < 5 || std::chrono::steady_clock::now() < deadline); ++round) {
    if (round < 3) tn.push_back(time_once([&] { naive(ptrs.data()); }));
    to.push_back(time_once([&] { cblas_sgemm(101, 111, 111, 512, 512, 512, 1.0f, A, 512, B, 512, 0.0f, C, 512); }));
    tt.push_back(time_once([&] { tuned(ptrs.data()); }));
  }
  const double gn = gflops_of(op, median(tn)), go = gflops_of(op, median(to)), gt = gflops_of(op, median(tt));
  std::printf("%-28s %10s %12s\n", "kernel (512^3 fp32 GEMM)", "GFLOP/s", "vs OpenBLAS");
  std::printf("%-28s %10.1f %11.2fx\n", "untransformed loop nest", gn, gn / go);
  std::printf("%-28s %10.1f %11.2fx\n", "OpenBLAS (cblas_sgemm)", go, 1.0);
  std::printf("%-28s %10.1f %11.2fx\n", "attune best (verified)", gt, gt / go);
  std::printf("attune speedup over the untransformed nest: %.1fx\n", gt / gn);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "attune-demo-baseline: error: %s\n", e.what());
  return 1;
}
