// CUDA for multi-stage ops (codegen_cuda.hpp: lower_cuda_stages), without a CUDA toolkit: the
// shape of the generated text (one __global__ per stage, the reductions' identities, the
// launchers), how lower() routes multi-stage ops on a cuda target, and hostile names and labels.
// cuda_stage_emulation_test.cpp checks the kernels' values; cuda_stage_compile_test.cpp compiles
// them with nvcc.
#include <gtest/gtest.h>

#include "codegen/codegen.hpp"
#include "codegen/codegen_cuda.hpp"
#include "ir/error.hpp"
#include "stage_specs.hpp"

namespace attune {
namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The text of stage k's kernel: from its signature to the next kernel or the launchers.
std::string kernel_text(const std::string& src, const std::string& id, std::size_t k) {
  const auto at = src.find("void __launch_bounds__(256) " + id + "_s" + std::to_string(k) + "(");
  if (at == std::string::npos) return "";
  return src.substr(at, src.find("\n}\n", at) - at);
}

std::string error_of(const Op& op) {
  try {
    lower_cuda_stages(op);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CudaStages, EveryStageTemplateIsCoveredByTheTests) {
  for (const auto& t : list_templates()) {
    if (test::is_contraction_template(t.name)) continue;
    bool listed = false;
    for (const auto& spec : test::stage_template_specs()) listed = listed || spec.rfind(t.name + ":", 0) == 0;
    EXPECT_TRUE(listed) << t.name << " is a multi-stage template missing from tests/codegen/stage_specs.hpp";
  }
}

TEST(CudaStages, OneKernelPerStageStartingFromTheReductionsIdentity) {
  std::vector<std::string> specs = test::stage_template_specs();
  specs.push_back(test::odd_stage_spec());
  for (const auto& spec : specs) {
    SCOPED_TRACE(spec);
    const Op op = test::stage_op(spec);
    const Artifact a = lower_cuda_stages(op);
    const std::string id = cuda_stage_kernel_name(op);
    EXPECT_EQ(a.language, "cuda");
    EXPECT_EQ(a.entry, id + "_launch");
    EXPECT_EQ(count_of(a.source, "__global__"), op.stages.size());
    for (std::size_t k = 0; k < op.stages.size(); ++k) {
      const Stage& st = op.stages[k];
      const std::string text = kernel_text(a.source, id, k);
      ASSERT_FALSE(text.empty()) << "stage " << k;
      EXPECT_NE(text.find("p_ += (int)gridDim.x * (int)blockDim.x"), std::string::npos) << text;
      const char* identity = st.reduce == Reduce::max   ? "float acc_ = (-INFINITY);"
                             : st.reduce == Reduce::min ? "float acc_ = INFINITY;"
                                                        : "float acc_ = ((float)0);";
      EXPECT_EQ(text.find(identity) != std::string::npos, st.reduce != Reduce::none) << text;
      EXPECT_EQ(text.find("acc_ = acc_ / ((float)" + std::to_string(st.reduced_points()) + ")") != std::string::npos,
                st.reduce == Reduce::mean)
          << text;
    }
    EXPECT_NE(a.source.find("extern \"C\" size_t " + id + "_workspace_bytes(void)"), std::string::npos);
    EXPECT_NE(a.source.find("extern \"C\" cudaError_t " + id +
                            "_launch_workspace(void* const* buffers, void* workspace, cudaStream_t stream)"),
              std::string::npos);
    EXPECT_NE(a.source.find("extern \"C\" cudaError_t " + id + "_launch(void* const* buffers, cudaStream_t stream)"),
              std::string::npos);
    EXPECT_EQ(count_of(a.source, "cudaMallocAsync"), op.locals.empty() ? 0u : 1u);
  }
}

TEST(CudaStages, PaddingIsSkippedByMaxAndReadAsZeroBySums) {
  const std::string max = lower_cuda_stages(test::stage_op(test::stage_template_specs()[10])).source;
  EXPECT_NE(max.find(") acc_ = fmaxf(acc_, (float)X["), std::string::npos) << max;  // under `if (in bounds)`
  EXPECT_EQ(max.find(": 0.0f)"), std::string::npos) << max;
  const std::string avg = lower_cuda_stages(test::stage_op(test::stage_template_specs()[12])).source;
  EXPECT_NE(avg.find("acc_ += ("), std::string::npos) << avg;
  EXPECT_NE(avg.find(" : 0.0f)"), std::string::npos) << avg;
}

TEST(CudaStages, MathIsCudasOwn) {
  const std::string gelu = lower_cuda_stages(test::stage_op("gelu:M=2,N=3")).source;
  EXPECT_NE(gelu.find("erff("), std::string::npos);
  EXPECT_EQ(gelu.find("attune_erf"), std::string::npos);
  const std::string norm = lower_cuda_stages(test::stage_op("layernorm:M=2,N=3")).source;
  EXPECT_NE(norm.find("rsqrtf("), std::string::npos);
  const std::string odd = lower_cuda_stages(test::stage_op(test::odd_stage_spec())).source;
  for (const char* s : {"fminf(acc_", "__float2half(", "__half2float(", "(int)(long long)(", "% 2 == 0", "expf("})
    EXPECT_NE(odd.find(s), std::string::npos) << s;
}

// An intermediate the stage writing it does not cover is zeroed first (the reference's buffers
// start zeroed); a covered one is not.
TEST(CudaStages, OnlyPartlyWrittenIntermediatesAreZeroed) {
  const Op part = test::stage_op("tensor X[4] f32; tensor T[8] f32; tensor Y[8] f32; T[i*2] = X[i]; Y[k] = T[k] + 1");
  EXPECT_EQ(count_of(lower_cuda_stages(part).source, "cudaMemsetAsync(local0_, 0, 32, stream)"), 1u);
  EXPECT_EQ(count_of(lower_cuda_stages(test::stage_op("softmax:M=2,N=3")).source, "cudaMemsetAsync"), 0u);
}

TEST(CudaStages, AnOutputElementOfSeveralPointsIsRefused) {
  const Op op = test::stage_op("tensor X[4, 4] f32; tensor Y[7] f32; Y[i + j] = X[i, j]");
  EXPECT_EQ(error_of(op),
            "stage 0 writes Y[i + j]: the CUDA backend needs one variable per output dimension (one thread per output "
            "element)");
}

TEST(CudaStages, LowerRoutesMultiStageOpsOnCudaTargets) {
  const Target h200 = load_target("nvidia-h200");
  const Op op = test::stage_op("softmax:M=4,N=8");
  const Lowered l = lower(Schedule{}, op, h200);
  EXPECT_EQ(l.artifact.source, lower_cuda_stages(op).source);
  Schedule tensorized;
  tensorized.tensorize = TensorizeStep{};
  EXPECT_THROW(lower(tensorized, op, h200), Error);
  EXPECT_THROW(lower_cuda_stages(test::stage_op("gemm:M=16,N=16,K=16,dtype=f16")), Error);
}

TEST(CudaStages, AHostileLabelReachesOnlyComments) {
  Op op = test::stage_op("softmax:M=4,N=8");
  op.name = "x */ int evil = 1; /*\n#error injected\n?\?/";
  const std::string src = lower_cuda_stages(op).source;
  EXPECT_EQ(cuda_stage_kernel_name(op), "attune_op_stages");  // a label the parser refuses names nothing
  EXPECT_EQ(src.find("*/ int evil"), std::string::npos);
  EXPECT_EQ(src.find("\n#error"), std::string::npos);
  EXPECT_EQ(src.find("?\?/"), std::string::npos);
  EXPECT_NE(src.find("// op x * / int evil = 1; / *\n// #error injected\n// ? ?/\n"), std::string::npos) << src;
}

TEST(CudaStages, HostileTensorAndVariableNamesAreRefused) {
  const Op base = test::stage_op("softmax:M=4,N=8");
  for (const char* bad : {"expf", "INFINITY", "a b", "blockIdx", "x[0]"}) {
    SCOPED_TRACE(bad);
    Op op = base;
    op.tensors[0].name = bad;
    for (auto& st : op.stages) for_each_read(st.value, [&](Access& a) { a.tensor = a.tensor == "X" ? bad : a.tensor; });
    EXPECT_NE(error_of(op).find("cannot appear in generated code"), std::string::npos) << error_of(op);
  }
  Op op = base;
  for (auto& st : op.stages)
    for (auto& v : st.vars)
      if (v.name == "n") v.name = "n) + evil(";
  EXPECT_EQ(error_of(op), "variable 'n) + evil(' is not a C identifier; it cannot name a loop in generated code");
}

}  // namespace
}  // namespace attune
