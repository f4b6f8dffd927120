// attune-worker: runs one candidate kernel in a process of its own and reports on stdout.
//
// Steps: parse the request, rebuild the op's inputs from the seed, load the shared object, run
// the kernel once on a zeroed output and compare it with the reference, then time it. A crash
// or hang here is the point of the exercise: the parent sees the signal or the timeout. Anything
// the kernel prints goes to stderr, so stdout carries nothing but the result.
#include <dlfcn.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <vector>

#include "ir/buffer.hpp"
#include "ir/error.hpp"
#include "ir/json_limits.hpp"
#include "ir/op.hpp"
#include "runtime/files.hpp"
#include "runtime/loaded_kernel.hpp"
#include "runtime/protocol.hpp"
#include "runtime/runtime.hpp"

namespace attune {

namespace {

using runtime::WorkerRequest;
using runtime::WorkerResult;
using Clock = std::chrono::steady_clock;
using Kernel = void (*)(void* const*);

// One timed call: the kernel, or, where it pre-packs its weights (codegen/artifact.hpp), its
// prepacked entry on buffers packed once, as a network runs it.
struct Call {
  Kernel kernel;
  Prepack::Function prepacked;
  void* const* args;
  void* const* packed;
  void operator()() const { prepacked ? prepacked(args, packed) : kernel(args); }
};

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

WorkerResult failure(const char* status, std::string error) {
  WorkerResult r;
  r.status = status;
  r.error = std::move(error);
  return r;
}

Buffer load_reference(const std::string& path, const Buffer& like) {
  Buffer want(like.dtype(), like.shape());
  auto bytes = runtime::read_file(path);
  if (!bytes) throw Error("cannot read reference file '" + path + "'");
  if (bytes->size() != want.bytes())
    throw Error("reference file '" + path + "' holds " + std::to_string(bytes->size()) +
                " bytes, the output tensor needs " + std::to_string(want.bytes()));
  std::memcpy(want.data(), bytes->data(), bytes->size());
  return want;
}

constexpr std::size_t kCacheLine = 64;  // bytes, on every x86 this runs on
// Repeats before a candidate may be given up on (give_up_s): one repeat can be slowed by
// something else. A convolution that runs 0.65 ms was once recorded at 2.5 ms from its one
// repeat, and the search, which had it among its best seeds, never came back to it.
constexpr int kGiveUpAfter = 2;

// Pushes every line this process has in the caches out of them by reading through a buffer
// half again as large as the last-level cache (sysconf's size, else 32 MiB). What it reaches
// that nothing else can: the workspaces a kernel keeps between calls (pack buffers over 64 KiB
// are per-thread statics, codegen's pack), its code and its page-table entries. In a network
// the steps between two calls of a kernel evict all of them, so a kernel that packs a 4 MiB
// weight into its workspace on every call ran 1.25x its time alone there, where the workspace
// stayed in L3 from the call before (docs/results/models-2026-12-06.md).
//
// No cache one core shares is larger than 128 MiB on the machines this runs on (a Zen CCD has
// 32 or 96, Sapphire Rapids' whole L3 is up to 112.5); a VM's CPUID can report more (a Zen 5
// guest said 508 MiB, and scrubbing 762 MiB before every repeat made a ResNet-50 trial take
// 4x as long), so a size beyond that is taken as unknown.
void scrub_caches() {
  static std::vector<char> scrub = [] {
    constexpr long kUnknown = 32L << 20, kLargest = 128L << 20;
    const long llc = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
    const std::size_t bytes = static_cast<std::size_t>(llc > 0 && llc <= kLargest ? llc : kUnknown);
    return std::vector<char>(bytes + bytes / 2, 1);
  }();
  volatile char sink = 0;
  for (std::size_t i = 0; i < scrub.size(); i += kCacheLine) sink = sink + scrub[i];
}

// Writes back and drops every cache line of [p, p + bytes) from every level of the cache, so
// that the next read comes from memory.
void evict_from_cache(const void* p, std::size_t bytes) {
#if defined(__x86_64__) || defined(__i386__)
  const auto* c = static_cast<const char*>(p);
  for (std::size_t i = 0; i < bytes; i += kCacheLine) __builtin_ia32_clflush(c + i);
  if (bytes) __builtin_ia32_clflush(c + bytes - 1);
  __builtin_ia32_mfence();
#else
  (void)p, (void)bytes;
  scrub_caches();  // no portable flush: the scrub pushes the buffer's lines out with the rest
#endif
}

// An op's buffers by what they are in a network: its weights (the const tensors), read cold by
// every timed call, and its activations (the others), written by the step before and read by
// the step after. An op without weights is no network task: it is timed warm, as it was left.
struct NetworkRoles {
  std::vector<const Buffer*> weights;
  std::vector<Buffer*> activations;
  bool network_task() const { return !weights.empty(); }
};

NetworkRoles network_roles(const Op& op, std::vector<Buffer>& buffers) {
  NetworkRoles r;
  for (std::size_t t = 0; t < op.tensors.size(); ++t) {
    if (op.tensors[t].constant)
      r.weights.push_back(&buffers[t]);
    else
      r.activations.push_back(&buffers[t]);
  }
  return r;
}

// Puts each buffer's cache lines where a network's previous step leaves them when it splits its
// output into contiguous blocks, one per thread: thread i writes (the same bytes back) the i-th
// block. Inside a network at two threads, a step reading lines another core holds modified
// runs at up to twice its time alone (docs/results/models-2026-12-05.md); timed on buffers it
// wrote itself, a kernel whose split reads the other core's half looks as fast as one that
// does not. Timed after this, a split that disagrees with the blocks pays for it. It does not
// make the network's steps agree where the space offers no such split or another one still
// times faster (docs/results/models-2026-12-06.md). At one thread it brings the activations
// back into the cache after scrub_caches(), dirty, as the step before leaves them.
void place_as_network_writes(const std::vector<Buffer*>& buffers) {
  const int threads = omp_get_max_threads();
  for (Buffer* b : buffers) {
    auto* bytes = static_cast<volatile unsigned char*>(b->data());
    const auto lines = static_cast<std::int64_t>((b->bytes() + kCacheLine - 1) / kCacheLine);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t l = 0; l < lines; ++l) bytes[l * kCacheLine] = bytes[l * kCacheLine];
  }
}

// Calls the kernel `number` times per repeat (enough to last min_repeat_s) and records the
// time per call. Stops after min_repeats once the running median settles, the time budget is
// spent, or max_repeats is reached; and after kGiveUpAfter once every repeat is past give_up_s. For a network task, every repeat is one call, and before it
// (outside the timed span) the weights are evicted from the cache, everything else the kernel
// left there scrubbed out, and the activations placed as the network's previous step leaves them.
std::vector<double> time_kernel(const Call& kernel, const WorkerRequest& req, const NetworkRoles& roles) {
  auto as_in_the_network = [&] {
    if (!roles.network_task()) return;
    for (const Buffer* b : roles.weights) evict_from_cache(b->data(), b->bytes());
    scrub_caches();
    place_as_network_writes(roles.activations);
  };
  as_in_the_network();
  auto t0 = Clock::now();
  kernel();
  const double one = std::max(seconds_since(t0), 1e-9);
  const long number = one >= req.min_repeat_s || roles.network_task()
                          ? 1
                          : std::min(10'000'000L, std::lround(std::ceil(req.min_repeat_s / one)));

  std::vector<double> times;
  double previous_median = 0;
  const auto start = Clock::now();
  while (true) {
    as_in_the_network();
    t0 = Clock::now();
    for (long i = 0; i < number; ++i) kernel();
    times.push_back(seconds_since(t0) / static_cast<double>(number));

    const double median = runtime::median_of(times);
    const int n = static_cast<int>(times.size());
    if (n >= req.max_repeats) break;
    // Even its fastest repeat so far is past give_up_s: clearly behind the best.
    if (req.give_up_s > 0 && n >= kGiveUpAfter && *std::min_element(times.begin(), times.end()) > req.give_up_s)
      break;
    if (n >= req.min_repeats) {
      if (seconds_since(start) >= req.max_seconds) break;
      const double moved = std::abs(median - previous_median);
      if (previous_median > 0 && moved <= req.stable_tol * previous_median) break;
    }
    previous_median = median;
  }
  return times;
}

// Runs one candidate; `phases` gets the seconds of each step reached (the result carries them).
WorkerResult run_steps(const WorkerRequest& req, std::map<std::string, double>& phases) {
  auto step = Clock::now();
  auto lap = [&](const char* name) {
    const auto now = Clock::now();
    phases[name] += std::chrono::duration<double>(now - step).count();
    step = now;
  };
  const Op op = parse_spec(req.spec);
  std::vector<Buffer> buffers = make_buffers(op, req.seed);
  const int out = op.tensor_index(op.output.tensor);
  ATTUNE_CHECK(out >= 0, "the output tensor is declared");
  Buffer& got = buffers[static_cast<std::size_t>(out)];
  const Buffer want = load_reference(req.reference_path, got);
  lap("setup");

  void* lib = ::dlopen(req.so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) return failure("runtime_error", std::string("dlopen failed: ") + ::dlerror());
  ::dlerror();
  void* sym = ::dlsym(lib, req.entry.c_str());
  if (!sym) {
    const char* why = ::dlerror();
    return failure("runtime_error", "dlsym(" + req.entry + ") failed: " + (why ? why : "null symbol"));
  }
  const auto kernel = reinterpret_cast<Kernel>(sym);
  Prepack prepack;
  try {
    prepack = find_prepack(lib, req.entry);
  } catch (const Error& e) {
    return failure("runtime_error", e.what());
  }
  std::vector<void*> pointers;
  for (auto& b : buffers) pointers.push_back(b.data());
  void* const* args = pointers.data();
  std::vector<Buffer> packed;
  std::vector<void*> packed_pointers;
  for (std::size_t bytes : prepack.bytes) {
    packed.emplace_back(DType::u8, std::vector<std::int64_t>{static_cast<std::int64_t>(bytes)});
    packed_pointers.push_back(packed.back().data());
  }
  lap("load");

  got.fill_zero();
  const auto t_first = Clock::now();
  kernel(args);
  const double first_s = seconds_since(t_first);
  const Comparison first = compare(got, want, req.rtol);
  lap("check");
  if (!first.ok) {
    WorkerResult r =
        failure("wrong_result", "output " + op.output.tensor + " differs from the reference: " + first.str());
    r.max_rel_error = first.max_rel_error;
    return r;
  }
  // The prepacked entry, which the timing calls, must agree too.
  if (prepack) {
    prepack.pack(args, packed_pointers.data());
    got.fill_zero();
    prepack.prepacked(args, packed_pointers.data());
    const Comparison again = compare(got, want, req.rtol);
    lap("check");
    if (!again.ok) {
      WorkerResult r = failure("wrong_result", "the kernel is right, its pre-packed entry is not: " + again.str());
      r.max_rel_error = again.max_rel_error;
      return r;
    }
  }
  const Call call{kernel, prepack.prepacked, args, packed_pointers.data()};
  WorkerResult r;
  r.status = "ok";
  r.max_rel_error = first.max_rel_error;
  if (req.cutoff_s > 0 && first_s > req.cutoff_s) {
    // The first call is cold and is not what is timed: it packs what the timed entry finds
    // packed, and touches its workspace's pages for the first time. On a VM that alone took
    // 23-27 ms for a 0.7 ms convolution, past every cutoff, so the search saw most candidates
    // 30x slower than they are. A second call of the timed entry decides: far slower than what
    // the tuner already has, that one call is its time.
    const auto t_second = Clock::now();
    call();
    const double second_s = seconds_since(t_second);
    lap("timing");
    if (second_s > req.cutoff_s) {
      r.times_s = {second_s};
      return r;
    }
  }
  const auto warm = Clock::now();
  for (int i = 0; i < req.warmup || seconds_since(warm) < req.warmup_s; ++i) call();
  lap("warmup");
  NetworkRoles roles = network_roles(op, buffers);
  for (const Buffer& b : packed) roles.weights.push_back(&b);  // packed weights are read cold too
  r.times_s = time_kernel(call, req, roles);
  lap("timing");
  if (req.recheck) {
    const Comparison again = compare(got, want, req.rtol);
    lap("recheck");
    if (!again.ok) {
      r = failure("wrong_result",
                  "correct on the first call but not after repeated calls (does the kernel "
                  "accumulate into its output instead of overwriting it?): " +
                      again.str());
      r.max_rel_error = again.max_rel_error;
    }
  }
  // The library stays loaded: the process ends right after, and unloading code that may have
  // started threads (OpenMP) is a crash risk for no benefit.
  return r;
}

WorkerResult run(const WorkerRequest& req) {
  std::map<std::string, double> phases;
  WorkerResult r = run_steps(req, phases);
  r.phases_s = std::move(phases);
  return r;
}

bool write_all(int fd, const std::string& text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

int worker_main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: attune-worker REQUEST.json  (started by attune's runner)\n";
    return 2;
  }
  // Keep stdout for the result and point fd 1 at stderr for everything else.
  const int result_fd = ::dup(1);
  if (result_fd < 0 || ::dup2(2, 1) < 0) {
    std::cerr << "attune-worker: cannot set up stdout: " << std::strerror(errno) << "\n";
    return 2;
  }
  WorkerResult result;
  try {
    auto text = runtime::read_file(argv[1]);
    if (!text) throw Error(std::string("cannot read request file '") + argv[1] + "'");
    result = run(runtime::request_from_json(parse_json_limited(*text, "request")));
  } catch (const std::exception& e) {
    result = failure("internal_error", e.what());
  }
  std::cout.flush();
  if (!write_all(result_fd, runtime::to_json(result).dump() + "\n")) return 3;
  return 0;
}

}  // namespace attune
