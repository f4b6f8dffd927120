// Generated CUDA compiles with nvcc -arch=sm_90 for GEMM and conv2d on every Tensor Core
// intrinsic of nvidia-h200, and the GPU bundle's harnesses compile and link (cuBLAS; cuDNN where
// its header exists). Compile only: no GPU is assumed. Skipped where nvcc is not found (PATH,
// then /usr/local/cuda/bin). All kernels share one .cu file to keep nvcc's time down.
#include <gtest/gtest.h>

#include "codegen/codegen_cuda.hpp"
#include "codegen/gpu_bundle.hpp"
#include "schedule/tensorize.hpp"
#include "tool_util.hpp"

namespace attune {
namespace {

const Target& h200() {
  static const Target t = load_target("nvidia-h200");
  return t;
}

std::string nvcc_or_skip() { return test::find_tool("nvcc", "/usr/local/cuda/bin"); }

// Shapes chosen so that some extents do not fill the intrinsic (guards) and the convolutions
// need fused, strided and padded staging.
std::vector<std::string> specs_for(DType in) {
  const std::string dt = in == DType::i8 ? "int8" : "f16";
  return {"gemm:M=40,N=24,K=40,dtype=" + dt, "gemm:M=64,N=64,K=64,dtype=" + dt + ",epilogue=bias_relu",
          "conv2d:N=1,H=9,W=9,C=8,K=24,R=3,S=3,stride=2,pad=1,layout=NCHW,dtype=" + dt,
          "conv2d:N=2,H=8,W=8,C=16,K=16,R=3,S=3,stride=1,pad=1,layout=NHWC,dtype=" + dt};
}

TEST(CudaCodegen, EveryTensorCoreIntrinsicCompilesForGemmAndConv2d) {
  const std::string nvcc = nvcc_or_skip();
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  std::string all = "// every kernel of the test in one translation unit\n";
  int n = 0;
  for (const auto& intr : h200().intrinsics) {
    int for_this = 0;
    for (const auto& spec : specs_for(intr.compute.tensor("A").dtype)) {
      const Op op = op_from_cli(spec);
      const MappingReport rep = enumerate_mappings(op, intr);
      // The default mapping, plus the first valid one-to-one match (no fusion) when different.
      std::vector<int> numbers{plan_tensorize(op, intr).mapping_number};
      for (std::size_t i = 0; i < rep.items.size(); ++i)
        if (rep.items[i].valid && rep.items[i].one_to_one() && static_cast<int>(i) + 1 != numbers[0]) {
          numbers.push_back(static_cast<int>(i) + 1);
          break;
        }
      for (int k : numbers) {
        CudaCodegenOptions o;
        o.name = "k" + std::to_string(n++);
        const Artifact a = lower_cuda(plan_tensorize(op, intr, k), o);
        EXPECT_NE(a.source.find(intr.emit_kind == "mma_sync" ? "mma.sync.aligned.m16n8k16" : "nvcuda::wmma::mma_sync"),
                  std::string::npos);
        EXPECT_NE(a.source.find("__shared__"), std::string::npos);
        all += a.source + "\n";
        ++for_this;
      }
    }
    EXPECT_GE(for_this, 4) << intr.name;
  }
  const auto dir = test::fresh_dir("cuda");
  test::write_text(dir / "all.cu", all);
  int rc = 0;
  const std::string cmd =
      nvcc + " -arch=sm_90 -std=c++17 -O3 -c " + (dir / "all.cu").string() + " -o " + (dir / "all.o").string();
  const std::string out = test::run_command(cmd, rc);
  EXPECT_EQ(rc, 0) << cmd << "\n" << out.substr(0, 6000);
  std::printf("compiled %d kernels with nvcc -arch=sm_90\n", n);
  if (rc == 0) std::filesystem::remove_all(dir);
}

TEST(CudaCodegen, BundleHarnessesCompileAndLink) {
  const std::string nvcc = nvcc_or_skip();
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found on PATH or in /usr/local/cuda/bin";
  const Op gemm = op_from_cli("gemm:M=100,N=72,K=64,dtype=f16");
  const Op conv = op_from_cli("conv2d:N=1,H=9,W=9,C=16,K=32,R=3,S=3,stride=2,pad=1,layout=NHWC,dtype=f16");
  const Op gemm8 = op_from_cli("gemm:M=64,N=64,K=64,dtype=int8");
  EXPECT_EQ(vendor_routine(gemm), "cublas");
  EXPECT_EQ(vendor_routine(conv), "cudnn");
  EXPECT_EQ(vendor_routine(gemm8), "cublas");
  EXPECT_EQ(vendor_routine(op_from_cli("conv2d:N=1,H=6,W=6,C=8,K=8,R=3,S=3,groups=2,layout=NHWC,dtype=f16")), "");
  const auto dir = test::fresh_dir("bundle");
  const auto ids = write_gpu_bundle(dir.string(), {plan_tensorize(gemm, h200().intrinsic("mma_m16n8k16_f16f32")),
                                                   plan_tensorize(conv, h200().intrinsic("wmma_16x16x16_f16f32")),
                                                   plan_tensorize(gemm8, h200().intrinsic("wmma_16x16x16_s8s32"))});
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_TRUE(std::filesystem::exists(dir / "kernels.txt"));
  const bool cudnn =
      std::filesystem::exists("/usr/include/cudnn.h") || std::filesystem::exists("/usr/local/cuda/include/cudnn.h");
  for (const auto& id : ids) {
    const std::string cmd = nvcc + " -arch=sm_90 -std=c++17 -O2 " + (cudnn ? "-DATTUNE_HAVE_CUDNN " : "") +
                            (dir / (id + "_check.cu")).string() + " -o " + (dir / id).string() + " -lcublas" +
                            (cudnn ? " -lcudnn" : "");
    int rc = 0;
    const std::string out = test::run_command(cmd, rc);
    EXPECT_EQ(rc, 0) << cmd << "\n" << out.substr(0, 6000);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace attune
