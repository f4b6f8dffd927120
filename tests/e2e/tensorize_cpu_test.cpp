// Tensorize on the host: for every op family of the CPU workloads (reduced extents), every valid
// mapping onto avx2_fma_f32 lowers to a kernel that builds, runs on random inputs and equals the
// reference evaluator. Extents are chosen so that many mappings need padding (guards). Each
// mapping gets a random schedule (register block rows x column tiles, parallel or serial) as the
// search would draw it, so the block remainders are exercised too.
#include <gtest/gtest.h>

#include <random>

#include "codegen/codegen_cpu_tensorize.hpp"
#include "runtime/runtime.hpp"
#include "schedule/tensorize.hpp"

namespace attune {
namespace {

struct Family {
  const char* name;
  const char* spec;
  bool none_valid = false;  // the access rule admits no mapping (checked, with its reason)
};

// The families of bench/workloads/cpu.txt, same template and parameters, smaller extents.
const Family kFamilies[] = {
    {"gemm", "gemm:M=9,N=19,K=7"},
    {"gemm_bias_relu", "gemm:M=5,N=12,K=6,epilogue=bias_relu"},
    {"gemv", "gemm:M=1,N=21,K=13"},
    {"batch_matmul", "batch_matmul:B=3,M=4,N=10,K=5"},
    {"conv1d", "conv1d:N=1,L=11,C=3,K=10,R=3,stride=2,pad=1,layout=NLC"},
    {"conv2d_nchw", "conv2d:N=1,H=6,W=5,C=3,K=9,R=3,S=3,stride=2,pad=1,layout=NCHW"},
    {"conv2d_nhwc_1x1", "conv2d:N=1,H=5,W=5,C=4,K=10,R=1,S=1,stride=1,pad=0,layout=NHWC"},
    {"conv3d", "conv3d:N=1,D=3,H=4,W=4,C=3,K=9,R=1,S=1,T=1,stride=1,pad=0,layout=NDHWC"},
    {"conv2d_grouped", "conv2d:N=1,H=5,W=5,C=4,K=8,R=3,S=3,stride=2,pad=1,groups=2,layout=NHWC"},
    {"conv2d_dilated", "conv2d:N=1,H=7,W=7,C=3,K=9,R=3,S=3,stride=1,pad=1,dilation=2,layout=NHWC"},
    // Depthwise has no reduction loop that both inputs use without a spatial loop beside it, so
    // the outer-product FMA has nothing to reduce over: no valid mapping.
    {"depthwise", "depthwise_conv2d:N=1,H=6,W=6,C=9,R=3,S=3,stride=2,pad=1,layout=NHWC", true},
    {"conv2d_transpose", "conv2d_transpose:N=1,H=3,W=3,C=4,K=9,R=4,S=4,stride=2,pad=1,layout=NHWC"},
    {"capsule", "conv2d_capsule:N=1,H=4,W=4,C=2,K=3,R=3,S=3,stride=2,pad=1,capsule=2,layout=NHWIJC"},
};

// Kernels are built many to a shared object (entries renamed attune_kernel_<mapping>), so a
// family with hundreds of mappings costs a few compiler runs, then each entry is run and checked.
constexpr std::size_t kKernelsPerObject = 48;

class TensorizeAvx2 : public ::testing::TestWithParam<Family> {};

TEST_P(TensorizeAvx2, EveryValidMappingEqualsTheReference) {
  static const Target target = load_target("x86-avx2");
  static Builder builder;
  const Intrinsic& intr = target.intrinsic("avx2_fma_f32");
  const Op op = op_from_cli(GetParam().spec);
  const MappingReport rep = enumerate_mappings(op, intr);
  if (GetParam().none_valid) {
    EXPECT_EQ(rep.mappings, 0);
    EXPECT_NE(rep.reason.find("no one-to-one match satisfies the access rule"), std::string::npos) << rep.reason;
    return;
  }
  std::vector<TensorizePlan> plans;
  std::vector<Artifact> objects;
  for (std::size_t i = 0; i < rep.items.size(); ++i) {
    if (!rep.items[i].valid) continue;
    plans.push_back(plan_tensorize(op, intr, static_cast<int>(i) + 1));
    std::mt19937 rng(static_cast<unsigned>(i) * 7919u + 17u);
    TensorizeSchedule& s = plans.back().schedule;
    do {
      s.rows = std::vector<int>{1, 2, 3, 4, 6}[rng() % 5];
      s.cols = 1 + static_cast<int>(rng() % 3);
    } while (s.rows * s.cols > 12);
    s.parallel = rng() % 2 == 0;
    Artifact a = lower_cpu_tensorized(plans.back(), target.compiler_flags);
    const std::string entry = "void attune_kernel(";
    const auto at = a.source.find(entry);
    ASSERT_NE(at, std::string::npos);
    a.source.replace(at, entry.size(), "void attune_kernel_" + std::to_string(plans.back().mapping_number) + "(");
    if ((plans.size() - 1) % kKernelsPerObject == 0) {
      objects.push_back(a);
    } else {
      objects.back().source += a.source;
    }
  }
  ASSERT_FALSE(plans.empty()) << GetParam().name << " has no valid avx2 mapping: " << rep.reason;
  const auto builds = builder.build_batch(objects);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const BuildResult& b = builds[i / kKernelsPerObject];
    ASSERT_TRUE(b.ok) << b.error.substr(0, 2000);
    MeasureOptions mo = MeasureOptions::correctness_only(2);
    mo.entry = "attune_kernel_" + std::to_string(plans[i].mapping_number);
    const Measurement m = measure(op, b.so_path, mo);
    EXPECT_TRUE(m.ok()) << status_name(m.status) << " for mapping #" << plans[i].mapping_number << " ("
                        << plans[i].mapping.str() << "): " << m.error.substr(0, 800) << "\nobject: " << b.so_path;
  }
  std::printf("%s: %zu valid avx2 mappings, all checked\n", GetParam().name, plans.size());
}

INSTANTIATE_TEST_SUITE_P(Families, TensorizeAvx2, ::testing::ValuesIn(kFamilies),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace attune
