// The values of the CUDA stage kernels (lower_cuda_stages), checked where no GPU is: the
// generated .cu compiles as host C++ with a small shim for the CUDA names it uses — one block of
// one thread, so each kernel's grid-stride loop walks every output element in turn; the launch
// syntax `<<<...>>>` removed; the workspace from malloc filled with 0xff bytes (NaN floats), so
// an intermediate read before it is written shows — and each op's output is compared with the
// reference evaluator's (stage_evaluator.cpp) on random inputs. This covers the index
// arithmetic, guards, identities and the launcher's order; what only a GPU shows (many threads,
// CUDA's libm) is scripts/gpu-check.sh's part. nvcc's compile: cuda_stage_compile_test.cpp.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <regex>

#include "codegen/codegen_cuda.hpp"
#include "ir/buffer.hpp"
#include "ir/evaluator.hpp"
#include "stage_specs.hpp"
#include "tool_util.hpp"

namespace attune {
namespace {

const char* kShim = R"(// Host stand-ins for what the stage kernels use of CUDA.
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
typedef _Float16 __half;
static inline float __half2float(__half h) { return (float)h; }
static inline __half __float2half(float f) { return (__half)f; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
struct emu_dim3 { unsigned x; };
static const emu_dim3 blockIdx = {0}, threadIdx = {0}, blockDim = {1}, gridDim = {1};
typedef int cudaError_t;
typedef void* cudaStream_t;
enum { cudaSuccess = 0 };
static inline cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t) {
  *p = malloc(n);
  if (!*p) return 2;
  memset(*p, 0xff, n);
  return cudaSuccess;
}
static inline cudaError_t cudaFreeAsync(void* p, cudaStream_t) { free(p); return cudaSuccess; }
static inline cudaError_t cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t) { memset(p, v, n); return cudaSuccess; }
static inline cudaError_t cudaGetLastError() { return cudaSuccess; }
#define __global__
#define __launch_bounds__(n)
)";

// The kernel source as host C++: CUDA's headers and launch brackets removed.
std::string as_host_cpp(const std::string& cu) {
  std::string s = std::regex_replace(cu, std::regex("#include <cuda_[a-z0-9_]+\\.h>\\n"), "");
  return std::regex_replace(s, std::regex("<<<[^>]*>>>"), "");
}

std::vector<std::string> emulated_specs() {
  std::vector<std::string> specs = test::stage_template_specs();
  specs.push_back(test::odd_stage_spec());
  // An intermediate written in part: the rest must read zero, not the workspace's NaNs.
  specs.push_back("tensor X[4] f32; tensor T[8] f32; tensor Y[8] f32; T[i*2] = X[i]; Y[k] = T[k] + 1");
  return specs;
}

TEST(CudaStageEmulation, EveryStageOpMatchesTheReferenceOnTheHost) {
  std::string cxx = test::find_tool("g++");
  if (cxx.empty()) cxx = test::find_tool("c++");
  if (cxx.empty()) GTEST_SKIP() << "no host C++ compiler (g++, c++) on PATH";
  const auto specs = emulated_specs();
  std::vector<Op> ops;
  std::string all = kShim;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    ops.push_back(test::stage_op(specs[i]));
    CudaCodegenOptions o;
    o.name = "emu" + std::to_string(i);
    all += as_host_cpp(lower_cuda_stages(ops.back(), o).source);
  }
  const auto dir = test::fresh_dir("cuda_stage_emu");
  test::write_text(dir / "emu.cpp", all);
  int rc = 0;
  const std::string cmd =
      cxx + " -std=c++17 -O1 -shared -fPIC " + (dir / "emu.cpp").string() + " -o " + (dir / "emu.so").string();
  const std::string out = test::run_command(cmd, rc);
  ASSERT_EQ(rc, 0) << cmd << "\n" << out.substr(0, 6000);
  void* lib = ::dlopen((dir / "emu.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << ::dlerror();
  using Launch = int (*)(void* const*, void*);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    SCOPED_TRACE(specs[i]);
    const Op& op = ops[i];
    auto launch = reinterpret_cast<Launch>(::dlsym(lib, ("emu" + std::to_string(i) + "_launch").c_str()));
    ASSERT_NE(launch, nullptr);
    std::vector<Buffer> got = make_buffers(op, 11 + i), want = got;
    evaluate_stages(op, want);
    std::vector<void*> ptrs;
    for (auto& b : got) ptrs.push_back(b.data());
    ASSERT_EQ(launch(ptrs.data(), nullptr), 0);
    const int o = op.tensor_index(op.output.tensor);
    const Comparison c = compare(got[o], want[o], 1e-4);
    EXPECT_TRUE(c.ok) << c.str();
  }
  ::dlclose(lib);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace attune
