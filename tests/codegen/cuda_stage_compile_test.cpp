// The CUDA of multi-stage ops (lower_cuda_stages) compiles with nvcc -arch=sm_90: every stage
// template at a small shape, the spec of odd cases (min=, divided index, f16 and i32, casts) and
// an op with a hostile label, all in one translation unit to keep nvcc's time down; and a GPU
// bundle's stage harness compiles and links. Compile only: no GPU is assumed. Skipped where nvcc
// is not found (PATH, then /usr/local/cuda/bin).
#include <gtest/gtest.h>

#include "codegen/codegen_cuda.hpp"
#include "codegen/gpu_bundle.hpp"
#include "stage_specs.hpp"
#include "tool_util.hpp"

namespace attune {
namespace {

std::string nvcc_or_skip() { return test::find_tool("nvcc", "/usr/local/cuda/bin"); }

TEST(CudaStageCompile, EveryStageTemplateCompilesWithNvcc) {
  const std::string nvcc = nvcc_or_skip();
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  std::vector<Op> ops;
  for (const auto& spec : test::stage_template_specs()) ops.push_back(test::stage_op(spec));
  ops.push_back(test::stage_op(test::odd_stage_spec()));
  Op hostile = test::stage_op("attention:H=2,T=8,D=4");
  hostile.name = "*/ #error injected /* \\\n?\?/ \"\n";
  ops.push_back(hostile);
  std::string all = "// every multi-stage kernel of the test in one translation unit\n";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    CudaCodegenOptions o;
    o.name = "st" + std::to_string(i);
    all += lower_cuda_stages(ops[i], o).source + "\n";
  }
  const auto dir = test::fresh_dir("cuda_stages");
  test::write_text(dir / "all.cu", all);
  int rc = 0;
  const std::string cmd =
      nvcc + " -arch=sm_90 -std=c++17 -O3 -c " + (dir / "all.cu").string() + " -o " + (dir / "all.o").string();
  const std::string out = test::run_command(cmd, rc);
  EXPECT_EQ(rc, 0) << cmd << "\n" << out.substr(0, 6000);
  EXPECT_EQ(out.find("warning"), std::string::npos) << out.substr(0, 6000);
  std::printf("compiled the kernels of %zu multi-stage ops with nvcc -arch=sm_90\n", ops.size());
  if (rc == 0) std::filesystem::remove_all(dir);
}

TEST(CudaStageCompile, BundleStageHarnessCompilesAndLinks) {
  const std::string nvcc = nvcc_or_skip();
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  const auto dir = test::fresh_dir("stage_bundle");
  const auto ids =
      write_gpu_bundle(dir.string(), {}, {test::stage_op("maxpool2d:N=1,C=2,H=7,W=7,R=3,S=3,stride=2,pad=1")});
  ASSERT_EQ(ids.size(), 1u);
  const std::string cmd = nvcc + " -arch=sm_90 -std=c++17 -O2 " + (dir / (ids[0] + "_check.cu")).string() + " -o " +
                          (dir / ids[0]).string() + " -lcublas";
  int rc = 0;
  const std::string out = test::run_command(cmd, rc);
  EXPECT_EQ(rc, 0) << cmd << "\n" << out.substr(0, 6000);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace attune
