// fma_peak.cpp — see fma_peak.hpp. Compiled with -O3 -mavx2 -mfma (bench/CMakeLists.txt):
// without -mfma the builtin does not exist, and the project's ISO mode (-std=c++20) sets
// -ffp-contract=off, so a plain `a * b + c` would not become an FMA — hence the explicit builtin.
//
// Why 12 chains: an AVX2 FMA has a latency of 4-5 cycles and two pipes issue one each per
// cycle, so at least 8-10 chains must be in flight to keep both pipes busy; 12 stay within the
// 16 ymm registers with room for the two constants.
#include "fma_peak.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace bench {

namespace {

typedef float v8 __attribute__((vector_size(32)));

// 12 * 8 * 2 flops per iteration. acc = acc * a + b converges (|a| < 1), so no overflow or
// denormals however long it runs.
__attribute__((noinline)) float chains(long iters) {
  const v8 a = {0.999f, 0.999f, 0.999f, 0.999f, 0.999f, 0.999f, 0.999f, 0.999f};
  const v8 b = {1e-3f, 1e-3f, 1e-3f, 1e-3f, 1e-3f, 1e-3f, 1e-3f, 1e-3f};
  v8 c0 = b, c1 = b * 2, c2 = b * 3, c3 = b * 4, c4 = b * 5, c5 = b * 6;
  v8 c6 = b * 7, c7 = b * 8, c8 = b * 9, c9 = b * 10, c10 = b * 11, c11 = b * 12;
  for (long i = 0; i < iters; ++i) {
#define F(c) c = __builtin_ia32_vfmaddps256(c, a, b)
    F(c0); F(c1); F(c2); F(c3); F(c4); F(c5); F(c6); F(c7); F(c8); F(c9); F(c10); F(c11);
#undef F
    // Keep the compiler from hoisting or merging the chains across iterations.
    asm volatile("" : "+x"(c0), "+x"(c1), "+x"(c2), "+x"(c3), "+x"(c4), "+x"(c5));
    asm volatile("" : "+x"(c6), "+x"(c7), "+x"(c8), "+x"(c9), "+x"(c10), "+x"(c11));
  }
  v8 s = c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9 + c10 + c11;
  float r = 0;
  for (int i = 0; i < 8; ++i) r += s[i];
  return r;
}

constexpr double kFlopsPerIter = 12 * 8 * 2;
volatile float g_sink;

void run_threads(int threads, long iters) {
  float total = 0;
#pragma omp parallel num_threads(threads)
  {
    float r = chains(iters);
#pragma omp atomic
    total += r;
  }
  g_sink = total;  // the result is used: the chains cannot be optimised away
}

double run(int threads, long iters) {
  const auto t0 = std::chrono::steady_clock::now();
  run_threads(threads, iters);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return threads * iters * kFlopsPerIter / s / 1e9;
}

}  // namespace

double PeakProbe::flops() const { return double(threads) * double(iters) * kFlopsPerIter; }

void PeakProbe::run() const { run_threads(threads, iters); }

PeakProbe make_peak_probe(int threads, double gflops, double seconds) {
  PeakProbe p;
  p.threads = threads;
  p.iters = std::max(1L << 10, static_cast<long>(seconds * gflops * 1e9 / threads / kFlopsPerIter));
  return p;
}

double fma_peak_gflops(int threads) {
  // Calibrate to ~0.1 s per run, then take the best of 7 runs: a peak is what the machine can
  // do, and on a shared machine slower runs only mean another tenant had the FP units.
  long iters = 1 << 20;
  const double g = run(threads, iters);
  iters = std::max(1L << 16, static_cast<long>(0.1 * g * 1e9 / threads / kFlopsPerIter));
  std::vector<double> v;
  for (int i = 0; i < 7; ++i) v.push_back(run(threads, iters));
  return *std::max_element(v.begin(), v.end());
}

}  // namespace bench
