// fma_peak.cpp — see fma_peak.hpp. Compiled with -O3 -mavx2 -mfma -ffp-contract=fast
// (bench/CMakeLists.txt): the project's ISO mode (-std=c++20) otherwise sets -ffp-contract=off,
// and a plain `c * a + b` would not become one FMA.
//
// Why 12 chains: an FMA has a latency of 4-5 cycles and two pipes issue one each per cycle, so
// at least 8-10 chains must be in flight to keep both pipes busy; 12 stay within the 16 ymm
// registers with room for the two constants.
#include "fma_peak.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace bench {

namespace {

typedef float v8 __attribute__((vector_size(32)));
typedef float v16 __attribute__((vector_size(64)));

// 12 independent chains of `V` (8 or 16 lanes) per iteration. The 16-lane version is built
// for AVX-512 only (target attribute) and called only where the CPU has it.
template <class V>
__attribute__((always_inline)) inline float chains_of(long iters, V a, V b) {
  V c0 = b, c1 = b * 2, c2 = b * 3, c3 = b * 4, c4 = b * 5, c5 = b * 6;
  V c6 = b * 7, c7 = b * 8, c8 = b * 9, c9 = b * 10, c10 = b * 11, c11 = b * 12;
  for (long i = 0; i < iters; ++i) {
#define F(c) c = c * a + b  // contracted to one FMA (-mfma, or the AVX-512 target)
    F(c0);
    F(c1);
    F(c2);
    F(c3);
    F(c4);
    F(c5);
    F(c6);
    F(c7);
    F(c8);
    F(c9);
    F(c10);
    F(c11);
#undef F
    // Keep the compiler from hoisting or merging the chains across iterations.
    asm volatile("" : "+v"(c0), "+v"(c1), "+v"(c2), "+v"(c3), "+v"(c4), "+v"(c5));
    asm volatile("" : "+v"(c6), "+v"(c7), "+v"(c8), "+v"(c9), "+v"(c10), "+v"(c11));
  }
  V s = c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9 + c10 + c11;
  float r = 0;
  for (int i = 0; i < int(sizeof(V) / sizeof(float)); ++i) r += s[i];
  return r;
}

__attribute__((noinline)) float chains8(long iters) { return chains_of<v8>(iters, v8{} + 0.999f, v8{} + 1e-3f); }

__attribute__((noinline, target("avx512f,fma"))) float chains16(long iters) {
  return chains_of<v16>(iters, v16{} + 0.999f, v16{} + 1e-3f);
}

double flops_per_iter(int bits) { return 12.0 * (bits / 32) * 2; }

volatile float g_sink;

void run_threads(int threads, long iters, int bits) {
  float total = 0;
#pragma omp parallel num_threads(threads)
  {
    float r = bits == 512 ? chains16(iters) : chains8(iters);
#pragma omp atomic
    total += r;
  }
  g_sink = total;  // the result is used: the chains cannot be optimised away
}

double run(int threads, long iters, int bits) {
  const auto t0 = std::chrono::steady_clock::now();
  run_threads(threads, iters, bits);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return threads * iters * flops_per_iter(bits) / s / 1e9;
}

}  // namespace

double PeakProbe::flops() const { return double(threads) * double(iters) * flops_per_iter(bits); }

void PeakProbe::run() const { run_threads(threads, iters, bits); }

PeakProbe make_peak_probe(int threads, double gflops, double seconds, int bits) {
  PeakProbe p;
  p.threads = threads;
  p.bits = bits;
  p.iters = std::max(1L << 10, static_cast<long>(seconds * gflops * 1e9 / threads / flops_per_iter(bits)));
  return p;
}

double fma_peak_gflops(int threads, int bits) {
  // Calibrate to ~0.1 s per run, then take the best of 7 runs: a peak is what the machine can
  // do, and on a shared machine slower runs only mean another tenant had the FP units.
  long iters = 1 << 20;
  const double g = run(threads, iters, bits);
  iters = std::max(1L << 16, static_cast<long>(0.1 * g * 1e9 / threads / flops_per_iter(bits)));
  std::vector<double> v;
  for (int i = 0; i < 7; ++i) v.push_back(run(threads, iters, bits));
  return *std::max_element(v.begin(), v.end());
}

}  // namespace bench
