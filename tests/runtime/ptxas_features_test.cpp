// cuda_kernel_features(): ptxas's resource report for a generated Tensor Core kernel (runs only
// where nvcc exists; nothing is executed on a GPU).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "codegen/codegen_cuda.hpp"
#include "hw/target.hpp"
#include "runtime/runtime.hpp"

namespace attune {
namespace {

bool have_nvcc() { return !find_nvcc().empty(); }

TEST(PtxasFeatures, ReadRegistersAndSharedMemoryOfAGeneratedKernel) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  const Target t = load_target("nvidia-h200");
  const Op op = op_from_cli("gemm:M=64,N=64,K=64,dtype=f16");
  const Artifact a = lower_cuda(plan_tensorize(op, t.intrinsics.at(1)));
  const auto path = std::filesystem::temp_directory_path() / ("attune-ptxas-test-" + std::to_string(getpid()) + ".cu");
  std::ofstream(path) << a.source;
  const auto f = cuda_kernel_features(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(f.contains("registers")) << f.dump();
  EXPECT_GT(f["registers"].get<long>(), 8);
  EXPECT_GT(f["smem_bytes"].get<long>(), 0) << "operand tiles are staged in shared memory";
  EXPECT_GE(f["kernels"].get<long>(), 1);
  EXPECT_GE(f["spill_store_bytes"].get<long>(), 0);
}

TEST(PtxasFeatures, ABadSourceGivesAnEmptyObject) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found";
  const auto path = std::filesystem::temp_directory_path() / ("attune-ptxas-bad-" + std::to_string(getpid()) + ".cu");
  std::ofstream(path) << "this is not CUDA\n";
  EXPECT_TRUE(cuda_kernel_features(path.string()).empty());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace attune
