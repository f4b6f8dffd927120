// The GPU bundle's writer (codegen/gpu_bundle.hpp), without a CUDA toolkit: for each plan a kernel
// file and a harness that includes it, and a manifest line. Bundles are generated when needed
// (scripts/gpu-check.sh calls `attune gpu-bundle`), so this checks the generator, not a copy;
// cuda_compile_test.cpp compiles a bundle where nvcc exists.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/gpu_bundle.hpp"
#include "ir/error.hpp"
#include "schedule/tensorize.hpp"
#include "tool_util.hpp"

namespace attune {
namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(GpuBundle, WritesAKernelAndAHarnessPerPlanAndOneManifestLineEach) {
  const Target h200 = load_target("nvidia-h200");
  const Op gemm = op_from_cli("gemm:M=64,N=48,K=32,dtype=f16");
  const TensorizePlan plan = plan_tensorize(gemm, h200.intrinsic("wmma_16x16x16_f16f32"));
  const auto dir = test::fresh_dir("gpu_bundle");
  // The same plan twice: the second kernel gets a new id instead of overwriting the first.
  const auto ids = write_gpu_bundle(dir.string(), {plan, plan});
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_NE(ids[0], ids[1]);
  const std::string manifest = read_text(dir / "kernels.txt");
  for (const auto& id : ids) {
    const std::string kernel = read_text(dir / (id + ".cu"));
    const std::string harness = read_text(dir / (id + "_check.cu"));
    EXPECT_NE(kernel.find("__global__"), std::string::npos) << id;
    EXPECT_NE(harness.find("#include \"" + id + ".cu\""), std::string::npos) << id;
    EXPECT_NE(harness.find("RESULT|"), std::string::npos) << id;
    EXPECT_NE(manifest.find("\n" + id + " | "), std::string::npos) << id;
  }
  // A header line and one line per kernel.
  EXPECT_EQ(std::count(manifest.begin(), manifest.end(), '\n'), 3);
  std::filesystem::remove_all(dir);
}

TEST(GpuBundle, AFolderThatCannotBeCreatedIsAnError) {
  const Target h200 = load_target("nvidia-h200");
  const Op gemm = op_from_cli("gemm:M=16,N=16,K=16,dtype=f16");
  const auto dir = test::fresh_dir("gpu_bundle_file");
  test::write_text(dir / "a_file", "not a folder\n");
  EXPECT_THROW(write_gpu_bundle((dir / "a_file" / "bundle").string(),
                                {plan_tensorize(gemm, h200.intrinsic("wmma_16x16x16_f16f32"))}),
               Error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace attune
