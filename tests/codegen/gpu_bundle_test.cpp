// The GPU bundle's writer (codegen/gpu_bundle.hpp), without a CUDA toolkit: for each plan a kernel
// file and a harness that includes it, and a manifest line. Bundles are generated when needed
// (scripts/gpu-check.sh calls `attune gpu-bundle`), so this checks the generator, not a copy;
// cuda_compile_test.cpp compiles a bundle where nvcc exists.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "codegen/gpu_bundle.hpp"
#include "ir/buffer.hpp"
#include "ir/error.hpp"
#include "ir/evaluator.hpp"
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

// A multi-stage op: its kernels, the harness, and a data file holding the inputs and the
// reference evaluator's output, in the op's tensor order.
TEST(GpuBundle, AMultiStageOpCarriesTheReferenceOutput) {
  const Op op = op_from_cli("layernorm:M=3,N=8");
  const auto dir = test::fresh_dir("gpu_bundle_stages");
  const auto ids = write_gpu_bundle(dir.string(), {}, {op, op});
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_NE(ids[0], ids[1]);
  const std::string kernel = read_text(dir / (ids[0] + ".cu"));
  const std::string harness = read_text(dir / (ids[0] + "_check.cu"));
  EXPECT_EQ(std::count(kernel.begin(), kernel.end(), '\n') > 10, true);
  EXPECT_NE(kernel.find(ids[0] + "_launch("), std::string::npos);
  EXPECT_NE(harness.find("#include \"" + ids[0] + ".cu\""), std::string::npos);
  EXPECT_NE(harness.find("\"" + ids[0] + ".data\""), std::string::npos);
  EXPECT_NE(harness.find("\"cuda-stages\""), std::string::npos);
  EXPECT_NE(read_text(dir / "kernels.txt").find("\n" + ids[0] + " | "), std::string::npos);

  std::vector<Buffer> want = make_buffers(op, 2027);
  evaluate_stages(op, want);
  std::string bytes;
  for (const auto& b : want) bytes.append(static_cast<const char*>(b.data()), b.bytes());
  std::ifstream f(dir / (ids[0] + ".data"), std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(data, bytes);
  EXPECT_EQ(data, stage_check_data(op, 2027));
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
