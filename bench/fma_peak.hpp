// fma_peak.hpp — the machine's fp32 FMA peak, measured by the bench itself (not taken from a
// spec sheet: a shared cloud core's clock and FP-unit share are what they are today).
#pragma once

namespace bench {

// GFLOP/s of `threads` OpenMP threads each running 12 independent FMA chains of `bits`-wide
// vectors (256: ymm, 512: zmm, only where the CPU has AVX-512; 2 flops per lane per FMA): the
// most any fp32 kernel of that width can do on this machine now. Best of 7 runs of about 0.1 s.
double fma_peak_gflops(int threads, int bits = 256);

// The same loop as one timed contender among the kernels (interleave.hpp), so that each
// kernel's % of peak is taken against the peak of the same rounds: on a shared machine the
// FP units' share changes from second to second. Runs `threads` threads for `iters` iterations.
struct PeakProbe {
  int threads = 1;
  long iters = 1;
  int bits = 256;
  double flops() const;  // flops one run() performs
  void run() const;
};
// A probe that lasts about `seconds` when the machine delivers `gflops`.
PeakProbe make_peak_probe(int threads, double gflops, double seconds, int bits = 256);

}  // namespace bench
