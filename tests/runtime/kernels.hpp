// tests/runtime/kernels.hpp — hand-written candidates for an 8x8x8 gemm, one per outcome the
// runner must tell apart, plus the shared fixture bits (the op, a scratch cache, cheap options).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "codegen/artifact.hpp"
#include "ir/op.hpp"
#include "runtime/runtime.hpp"

namespace attune::test {

inline Op gemm8() {
  return parse_spec("tensor A[8,8] f32; tensor B[8,8] f32; tensor C[8,8] f32; C[m,n] += A[m,k] * B[k,n]");
}

inline const char* const kPrologue =
    "#include <stdlib.h>\n"
    "#include <signal.h>\n"
    "#include <stdio.h>\n";

// Correct: C = A * B, overwriting C.
inline const char* const kGood = R"(
void attune_kernel(void* const* buffers) {
  const float* restrict A = buffers[0];
  const float* restrict B = buffers[1];
  float* restrict C = buffers[2];
  for (int m = 0; m < 8; ++m)
    for (int n = 0; n < 8; ++n) {
      float acc = 0;
      for (int k = 0; k < 8; ++k) acc += A[m * 8 + k] * B[k * 8 + n];
      C[m * 8 + n] = acc;
    }
}
)";

// kGood, but the calls numbered by `when` (a C condition on `call`, 0 for the first) sleep
// `ms` milliseconds first.
inline std::string good_kernel_sleeping(const std::string& when, int ms) {
  return std::string("#include <time.h>\n#define attune_kernel good_kernel\n") + kGood +
         "#undef attune_kernel\n"
         "void attune_kernel(void* const* buffers) {\n"
         "  static int calls = 0;\n"
         "  const int call = calls++;\n"
         "  if (" + when + ") {\n"
         "    struct timespec t = {0, " + std::to_string(ms) + " * 1000 * 1000};\n"
         "    nanosleep(&t, 0);\n"
         "  }\n"
         "  good_kernel(buffers);\n"
         "}\n";
}

// A cold first call (packing, first touch of its workspace) that the timed calls do not repeat.
inline std::string slow_first_call() { return good_kernel_sleeping("call == 0", 60); }

// With no cut-off, two warm-up calls and no warm-up time, calls 3 and 4 are the one that sizes
// a repeat and the first timed repeat: one slow repeat, then fast ones.
inline std::string one_slow_repeat() { return good_kernel_sleeping("call == 3 || call == 4", 5); }

// A store to an unmapped page (a non-null constant, so the compiler cannot prove it is UB).
inline const char* const kSegfault = R"(
void attune_kernel(void* const* buffers) {
  volatile int* p = (volatile int*)64;
  *p = 1;
}
)";

inline const char* const kHang = R"(
void attune_kernel(void* const* buffers) {
  volatile int spin = 1;
  while (spin) {}
}
)";

// Transposes B by mistake.
inline const char* const kWrong = R"(
void attune_kernel(void* const* buffers) {
  const float* A = buffers[0];
  const float* B = buffers[1];
  float* C = buffers[2];
  for (int m = 0; m < 8; ++m)
    for (int n = 0; n < 8; ++n) {
      float acc = 0;
      for (int k = 0; k < 8; ++k) acc += A[m * 8 + k] * B[n * 8 + k];
      C[m * 8 + n] = acc;
    }
}
)";

inline const char* const kSyntaxError = R"(
void attune_kernel(void* const* buffers) {
  int x = ;
}
)";

inline const char* const kAbort = R"(
void attune_kernel(void* const* buffers) { abort(); }
)";

inline const char* const kExit = R"(
void attune_kernel(void* const* buffers) { exit(3); }
)";

// Right the first time, then accumulates: only the re-check after timing can see it.
inline const char* const kAccumulates = R"(
void attune_kernel(void* const* buffers) {
  const float* A = buffers[0];
  const float* B = buffers[1];
  float* C = buffers[2];
  for (int m = 0; m < 8; ++m)
    for (int n = 0; n < 8; ++n)
      for (int k = 0; k < 8; ++k) C[m * 8 + n] += A[m * 8 + k] * B[k * 8 + n];
}
)";

// Prints on stdout (which must not disturb the result channel), then computes correctly.
inline const char* const kChatty = R"(
void attune_kernel(void* const* buffers) {
  printf("{not json\n");
  fflush(stdout);
  const float* A = buffers[0];
  const float* B = buffers[1];
  float* C = buffers[2];
  for (int m = 0; m < 8; ++m)
    for (int n = 0; n < 8; ++n) {
      float acc = 0;
      for (int k = 0; k < 8; ++k) acc += A[m * 8 + k] * B[k * 8 + n];
      C[m * 8 + n] = acc;
    }
}
)";

// Aborts unless the runner set OMP_NUM_THREADS=3 for the worker.
inline const char* const kNeedsThreads3 = R"(
void attune_kernel(void* const* buffers) {
  const char* t = getenv("OMP_NUM_THREADS");
  if (!t || t[0] != '3' || t[1] != 0) abort();
  float* C = buffers[2];
  for (int i = 0; i < 64; ++i) C[i] = 0;
}
)";

inline Artifact c_artifact(const std::string& body, std::string entry = "attune_kernel") {
  Artifact a;
  a.source = kPrologue + body;
  a.entry = std::move(entry);
  a.flags = {"-O2"};
  return a;
}

// Cheap timing: a handful of short repeats.
inline MeasureOptions quick_options() {
  MeasureOptions o;
  o.warmup = 1;
  o.min_repeats = 3;
  o.max_repeats = 6;
  o.min_repeat_s = 1e-4;
  o.max_seconds = 0.2;
  o.timeout_s = 20;
  return o;
}

// A fresh cache directory for one test, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    std::string t = (std::filesystem::temp_directory_path() / "attune-test-XXXXXX").string();
    path_ = ::mkdtemp(t.data()) ? t : "";
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline BuildOptions build_options(const ScratchDir& dir) {
  BuildOptions b;
  b.cache_dir = dir.path();
  return b;
}

}  // namespace attune::test
