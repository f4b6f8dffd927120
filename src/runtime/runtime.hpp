// runtime/runtime.hpp — build artifacts into shared objects and measure them in isolation.
//
// Builder: compiles Artifacts (language "c") with the system C compiler into a content-addressed
// cache, many at once. Runner: runs each built candidate in a fresh `attune-worker` process,
// checks its output against the reference evaluator, times it, and turns every way a candidate
// can fail (crash, hang, wrong answer, unloadable object) into a Measurement status. Nothing a
// candidate does can stop or corrupt the calling process.
//
// Tests: tests/runtime/.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/artifact.hpp"
#include "ir/buffer.hpp"
#include "ir/measure.hpp"
#include "ir/op.hpp"

namespace attune {

// ---- building ------------------------------------------------------------------------------

struct BuildOptions {
  // The compiler and any leading arguments, split on spaces (no shell). Empty: $CC, else "cc".
  std::string compiler;
  // Where sources and shared objects are kept. Empty: $ATTUNE_CACHE_DIR, else
  // $XDG_CACHE_HOME/attune, else ~/.cache/attune.
  std::string cache_dir;
  double timeout_s = 120;  // per compiler invocation; the compiler's process group is killed after
  int jobs = 0;            // parallel compilations in build_batch(); 0: number of cores
};

struct BuildResult {
  bool ok = false;
  std::string so_path;   // the shared object, when ok
  std::string error;     // the compiler's diagnostics (or why it could not run), when !ok
  double compile_s = 0;  // wall time of the compiler run; 0 when cached
  bool cached = false;   // served from the cache without running the compiler
};

class Builder {
 public:
  // Resolves the compiler and asks it for its version. Throws Error when it cannot be run.
  explicit Builder(BuildOptions options = {});

  // Never throws for a bad artifact: compiler errors, timeouts and unsupported languages come
  // back as !ok with a message. Safe to call from several threads.
  BuildResult build(const Artifact& artifact) const;
  // Builds in parallel (options.jobs threads); results in input order. Identical artifacts in
  // one batch are compiled once.
  std::vector<BuildResult> build_batch(const std::vector<Artifact>& artifacts) const;

  const std::string& cache_dir() const { return cache_dir_; }
  // "<path> | <first line of --version>", e.g. "/usr/bin/cc | cc (Debian 12.2.0-14) 12.2.0":
  // what the database records about the toolchain. Part of every cache key.
  const std::string& compiler_info() const { return compiler_info_; }
  // The cache key (16 hex digits) an artifact would be stored under.
  std::string cache_key(const Artifact& artifact) const;

 private:
  BuildOptions options_;
  std::vector<std::string> compiler_argv_;  // resolved compiler path, then its leading arguments
  std::string compiler_info_;
  std::string cache_dir_;
};

// ML²Tuner's hidden features of a built candidate, read from its object code with objdump:
// {"fma", "vector_loads", "vector_stores", "spill_stores", "spill_loads", "branches", "calls",
//  "instructions", "code_bytes", "functions"} over the kernel's functions (`entry` and the
// OpenMP regions outlined from it). An empty object when objdump is missing or fails: hidden
// features are an aid, never a reason to drop a candidate.
nlohmann::json object_features(const std::string& so_path, const std::string& entry = "attune_kernel");

// The hidden features of a CUDA translation unit, from ptxas's report (`nvcc -Xptxas -v`):
// {"registers", "smem_bytes", "stack_bytes", "spill_store_bytes", "spill_load_bytes",
//  "kernels"}, the maximum over the file's kernels. `arch` is nvcc's -arch value. An empty
// object when nvcc is not found (PATH, then /usr/local/cuda/bin) or the compile fails; the
// CPU build never needs nvcc.
nlohmann::json cuda_kernel_features(const std::string& cu_path, const std::string& arch = "sm_90");
// nvcc's path as cuda_kernel_features() finds it (PATH, then /usr/local/cuda/bin); empty if none.
std::string find_nvcc();

// The default compiler's identity ("<path> | <version line>"), as Builder{}.compiler_info().
std::string compiler_info();

// ---- measuring -----------------------------------------------------------------------------

struct MeasureOptions {
  std::uint64_t seed = 1;  // inputs are make_buffers(op, seed), the same in parent and worker
  int threads = 0;         // OMP_NUM_THREADS for the worker; 0 leaves the environment as is
  double rtol = 1e-4;      // tolerance of the reference comparison (see compare())
  std::string entry = "attune_kernel";

  // Timing, inside the worker. Each repeat calls the kernel enough times to last min_repeat_s
  // (so tiny kernels are not lost in clock resolution) and records the time per call.
  int warmup = 2;  // untimed calls after the correctness check
  // ... and untimed calls until this long has passed. A kernel on two threads of this VM runs
  // slowly for its first few milliseconds (times per 1 ms repeat rose 62 -> 131 GFLOP/s over
  // the first 6 ms of a 140 us GEMM): timed from a cold start, the ramp is in its median.
  double warmup_s = 0.01;
  int min_repeats = 3;
  int max_repeats = 50;
  double min_repeat_s = 1e-3;
  double max_seconds = 2.0;  // stop repeating (after min_repeats) once this much was spent
  double stable_tol = 0.02;  // ... or once the running median moved less than this
  // Compare the output again after timing: catches kernels that accumulate into their output
  // instead of overwriting it (the output is zeroed only before the first, checked call).
  bool recheck = true;
  // A candidate whose checked first call already takes longer than this (seconds; 0: no
  // limit) is timed by that call alone: no warm-up, no repeats. A tuner passes a multiple of
  // its best time, so a hopeless candidate of a large operator costs one call, not five.
  double cutoff_s = 0;
  // Timing stops, whatever min_repeats says, as soon as the running median is slower than
  // this (seconds; 0: never): a candidate clearly behind the tuner's best needs no precise
  // time, only a time that says so.
  double give_up_s = 0;

  double timeout_s = 60;  // wall clock for the whole worker run; then its group gets SIGKILL

  // One checked call and no timing to speak of: for correctness checks (verify, tests).
  static MeasureOptions correctness_only(int threads = 0) {
    MeasureOptions m;
    m.warmup = 0;
    m.warmup_s = 0;
    m.min_repeats = 1;
    m.max_repeats = 1;
    m.min_repeat_s = 0;
    m.max_seconds = 0.05;
    m.threads = threads;
    return m;
  }
};

struct RunnerOptions {
  // The worker executable. Empty: find_worker() (locations.hpp: $ATTUNE_WORKER, an installed
  // tree's libexec/attune, next to this executable, the build tree).
  std::string worker;
  // Where request and reference files go (a private directory is made inside). Empty: $TMPDIR
  // or /tmp.
  std::string temp_dir;
};

// Measures candidates one at a time (never in parallel: they would disturb each other's
// timings). Keeps the reference output of each (op, seed) it has seen, so a batch of candidates
// for one task evaluates the reference once. Thread-safe, but calls are serialised.
class Runner {
 public:
  explicit Runner(RunnerOptions options = {});  // throws Error when no worker can be found
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  Measurement measure(const Op& op, const std::string& so_path, const MeasureOptions& options);
  std::vector<Measurement> measure_batch(const Op& op, const std::vector<std::string>& so_paths,
                                         const MeasureOptions& options);
  // Failed builds become compile_error measurements (with the compiler's message) without
  // running anything; compile_s is carried over from each build.
  std::vector<Measurement> measure_batch(const Op& op, const std::vector<BuildResult>& builds,
                                         const MeasureOptions& options);
  // Compares against `reference` (the output tensor's expected contents) instead of the
  // reference evaluator's answer. Throws Error when its dtype or shape does not fit the op.
  Measurement measure_with_reference(const Op& op, const std::string& so_path, const Buffer& reference,
                                     const MeasureOptions& options);

  const std::string& worker_path() const { return worker_; }

 private:
  Measurement run_worker(const Op& op, const std::string& so_path, const std::string& ref_path,
                         const MeasureOptions& options);
  std::string reference_file(const Op& op, std::uint64_t seed);  // cached per (op, seed)
  std::string write_reference(const Buffer& reference, const std::string& name);

  std::string worker_;
  std::string dir_;  // private temp directory, removed by the destructor
  std::mutex mutex_;
  std::map<std::string, std::string> references_;  // canonical spec + seed -> file
  std::uint64_t counter_ = 0;
};

// The same through one process-wide Runner, made on first use.
Measurement measure(const Op& op, const std::string& so_path, const MeasureOptions& options = {});
std::vector<Measurement> measure_batch(const Op& op, const std::vector<std::string>& so_paths,
                                       const MeasureOptions& options = {});
std::vector<Measurement> measure_batch(const Op& op, const std::vector<BuildResult>& builds,
                                       const MeasureOptions& options = {});
Measurement measure_with_reference(const Op& op, const std::string& so_path, const Buffer& reference,
                                   const MeasureOptions& options = {});

// The attune-worker executable's main (src/runtime/worker_main/main.cpp only forwards to it):
// `attune-worker REQUEST.json` runs one candidate and prints a JSON result on stdout.
int worker_main(int argc, char** argv);

}  // namespace attune
