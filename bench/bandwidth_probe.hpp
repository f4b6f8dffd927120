// bandwidth_probe.hpp — the machine's streaming memory bandwidth, measured by the bench itself
// like the FMA peak (fma_peak.hpp): a STREAM triad, a[i] = b[i] + s * c[i], over three arrays
// that together are many times the last-level cache, run by the kernels' own thread count.
// Bytes are counted as STREAM counts them: 12 per element (b and c read, a written), not the
// write-allocate read of a that the hardware adds.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace bench {

// "AMD EPYC (family 25, model 17), last-level cache 32 MiB": /proc/cpuinfo's model name and
// numbers, and the largest cache sysfs lists.
std::string cpu_model();

// GB/s of the triad at `threads` OpenMP threads over the whole arrays: the best of 7 sweeps,
// after one that faults the pages in (a bandwidth is what the machine can do; slower sweeps
// only mean another tenant had the memory bus).
double memory_bandwidth_gbs(int threads);

// The same triad as one timed contender among the kernels (interleave.hpp), so that a kernel's
// share of the bandwidth is taken against the bandwidth of the same rounds. Each run() covers
// `elements` of each array, starting where the previous run stopped (wrapping around), so
// every run streams data that left the caches long ago.
struct BandwidthProbe {
  struct Arrays;
  std::shared_ptr<Arrays> arrays;  // process-wide, allocated on first use
  int threads = 1;
  long elements = 1;
  double bytes() const;  // bytes one run() counts
  void run() const;
};
// A probe that lasts about `seconds` when the machine delivers `gbs`.
BandwidthProbe make_bandwidth_probe(int threads, double gbs, double seconds);

}  // namespace bench
