// bandwidth_probe.cpp — see bandwidth_probe.hpp. Compiled with -O3 (bench/CMakeLists.txt) so
// that the triad is vectorised whatever the build type; it is memory-bound either way.
#include "bandwidth_probe.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>

namespace bench {

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// "32768K" / "32M" / "1024" (sysfs cache sizes) in bytes; 0 when unreadable.
std::size_t parse_size(const std::string& s) {
  if (s.empty()) return 0;
  const std::size_t n = std::strtoull(s.c_str(), nullptr, 10);
  switch (s.back()) {
    case 'K': return n << 10;
    case 'M': return n << 20;
    case 'G': return n << 30;
    default: return n;
  }
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// The largest cache of cpu0 (sysfs index*/size of the highest level); 0 when sysfs has none.
std::size_t last_level_cache_bytes() {
  int best_level = 0;
  std::size_t bytes = 0;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string level = read_line(dir + "level");
    if (level.empty()) continue;
    const int l = std::atoi(level.c_str());
    if (l >= best_level) best_level = l, bytes = parse_size(read_line(dir + "size"));
  }
  return bytes;
}

// /proc/cpuinfo's first "key : value" for each key.
std::map<std::string, std::string> cpuinfo() {
  std::ifstream in("/proc/cpuinfo");
  std::map<std::string, std::string> kv;
  for (std::string line; std::getline(in, line) && !line.empty();) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    k.erase(k.find_last_not_of(" \t") + 1);
    const auto v = line.find_first_not_of(' ', colon + 1);
    kv.emplace(k, v == std::string::npos ? "" : line.substr(v));
  }
  return kv;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// Three arrays of n floats, together 8x the last-level cache (at least 384 MiB, at most
// 1.5 GiB); `next` is where the next run starts.
struct BandwidthProbe::Arrays {
  long n = 0;
  std::unique_ptr<float[]> a, b, c;  // uninitialised until the parallel fill touches them
  long next = 0;

  Arrays() {
    const std::size_t total = std::clamp<std::size_t>(8 * last_level_cache_bytes(), 384 * kMiB, 1536 * kMiB);
    n = static_cast<long>(total / (3 * sizeof(float)));
    a.reset(new float[std::size_t(n)]);
    b.reset(new float[std::size_t(n)]);
    c.reset(new float[std::size_t(n)]);
    float *pa = a.get(), *pb = b.get(), *pc = c.get();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) pa[i] = 0, pb[i] = 1, pc[i] = 2;
  }

  void triad(int threads, long from, long count) {
    float* __restrict pa = a.get();
    const float* __restrict pb = b.get();
    const float* __restrict pc = c.get();
    const long end = from + count;
#pragma omp parallel for simd num_threads(threads) schedule(static)
    for (long i = from; i < end; ++i) pa[i] = pb[i] + 3.0f * pc[i];
  }
};

namespace {

std::shared_ptr<BandwidthProbe::Arrays> arrays() {
  static auto arr = std::make_shared<BandwidthProbe::Arrays>();
  return arr;
}

}  // namespace

std::string cpu_model() {
  auto kv = cpuinfo();
  std::string s = kv.count("model name") ? kv["model name"] : "unknown CPU";
  if (kv.count("cpu family") && kv.count("model")) s += " (family " + kv["cpu family"] + ", model " + kv["model"] + ")";
  if (const auto llc = last_level_cache_bytes(); llc > 0)
    s += ", last-level cache " + std::to_string(llc / kMiB) + " MiB";
  return s;
}

double BandwidthProbe::bytes() const { return 12.0 * double(elements); }

void BandwidthProbe::run() const {
  Arrays& arr = *arrays;
  if (arr.next + elements > arr.n) arr.next = 0;
  arr.triad(threads, arr.next, elements);
  arr.next += elements;
}

BandwidthProbe make_bandwidth_probe(int threads, double gbs, double seconds) {
  BandwidthProbe p;
  p.arrays = arrays();
  p.threads = threads;
  p.elements = std::clamp(static_cast<long>(seconds * gbs * 1e9 / 12.0), 1L << 16, p.arrays->n);
  return p;
}

double memory_bandwidth_gbs(int threads) {
  const auto arr = arrays();
  arr->triad(threads, 0, arr->n);  // untimed
  double best = 0;
  for (int i = 0; i < 7; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    arr->triad(threads, 0, arr->n);
    best = std::max(best, 12.0 * double(arr->n) / seconds_since(t0) / 1e9);
  }
  return best;
}

}  // namespace bench
