// lower() (codegen/codegen.hpp): each target kind and schedule shape reaches its backend with
// the options every caller shares, and a schedule a backend cannot take is refused by name.
#include <gtest/gtest.h>

#include "codegen/codegen.hpp"
#include "codegen/codegen_cpu.hpp"
#include "codegen/codegen_cpu_tensorize.hpp"
#include "codegen/codegen_cuda.hpp"
#include "codegen/codegen_vta.hpp"
#include "ir/error.hpp"

namespace attune {
namespace {

const Target& avx2() {
  static const Target t = load_target("x86-avx2");
  return t;
}

Schedule tensorized(const Op& op, const Intrinsic& intr) {
  Schedule s;
  s.tensorize = plan_tensorize(op, intr).step();
  return s;
}

std::string error_of(const Schedule& s, const Op& op, const Target& t) {
  try {
    lower(s, op, t);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// The C tune() measures: the replayed nest with the target's options and the schedule's text
// in the header comment.
TEST(Lower, CpuLoopNest) {
  const Op op = op_from_cli("gemm:M=16,N=32,K=8");
  const Schedule s{Trace{
      {Transform::split("n", {2, 16}), Transform::reorder({"m", "n.0", "k", "n.1"}), Transform::vectorize("n.1")}}};
  const Artifact a = lower(s, op, avx2()).artifact;
  CpuCodegenOptions o = cpu_codegen_options(avx2());
  o.trace_json = schedule_to_string(s);
  const Artifact want = lower_cpu(replay(op, s.nest), o);
  EXPECT_EQ(a.source, want.source);
  EXPECT_EQ(a.flags, want.flags);
  EXPECT_NE(a.source.find(" * trace: " + schedule_to_string(s)), std::string::npos);
}

TEST(Lower, CpuTensorize) {
  const Op op = op_from_cli("gemm:M=16,N=32,K=8");
  const Schedule s = tensorized(op, avx2().intrinsics.at(0));
  const Artifact a = lower(s, op, avx2()).artifact;
  const Artifact want =
      lower_cpu_tensorized(tensorize_plan(op, avx2(), *s.tensorize), cpu_codegen_options(avx2()).flags);
  EXPECT_EQ(a.source, want.source);
  EXPECT_EQ(a.flags, want.flags);
}

TEST(Lower, CudaTensorize) {
  const Target h200 = load_target("nvidia-h200");
  const Op op = op_from_cli("gemm:M=32,N=32,K=32,dtype=f16");
  const Schedule s = tensorized(op, h200.intrinsics.at(0));
  const Artifact a = lower(s, op, h200).artifact;
  EXPECT_EQ(a.language, "cuda");
  EXPECT_EQ(a.source, lower_cuda(tensorize_plan(op, h200, *s.tensorize)).source);
}

TEST(Lower, VtaKnobs) {
  const Op op = op_from_cli("conv2d:N=1,H=8,W=8,C=16,K=16,R=3,S=3,stride=1,pad=1,dtype=int8");
  Schedule s;
  s.knobs = AcceleratorKnobs{"vta", {{"tile_h", 4}, {"tile_w", 8}, {"h_nthread", 2}}};
  const VtaConfig cfg = default_vta_config();
  const Lowered l = lower(s, op, load_target("vta"), {.vta = &cfg});
  ASSERT_TRUE(l.vta);
  const VtaKnobs k{.tile_h = 4, .tile_w = 8, .h_nthread = 2};
  EXPECT_EQ(l.vta->knobs, k);
  const VtaCompiled want = compile_vta(op, k, cfg);
  EXPECT_EQ(l.vta->status, want.status);
  EXPECT_EQ(l.vta->hidden, want.hidden);
  EXPECT_TRUE(l.artifact.source.empty());
}

TEST(Lower, RefusesWhatTheBackendCannotTake) {
  const Op gemm = op_from_cli("gemm:M=16,N=32,K=8");
  Schedule knobs;
  knobs.knobs = AcceleratorKnobs{"vta", {}};
  EXPECT_EQ(error_of(knobs, gemm, avx2()), "cpu target x86-avx2 has no accelerator knobs (the schedule sets vta's)");

  Schedule both = tensorized(gemm, avx2().intrinsics.at(0));
  both.nest.steps.push_back(Transform::parallel("m"));
  EXPECT_EQ(error_of(both, gemm, avx2()),
            "a tensorize step on the CPU ends a schedule of no loop-nest steps; this one has 1");

  EXPECT_EQ(error_of(Schedule{}, op_from_cli("gemm:M=32,N=32,K=32,dtype=f16"), load_target("nvidia-h200")),
            "cuda target nvidia-h200 lowers a tensorize step alone (no loop-nest steps, no knobs)");
  EXPECT_EQ(error_of(Schedule{}, op_from_cli("gemm:M=16,N=16,K=16,dtype=int8"), load_target("vta")),
            "vta targets are scheduled by knobs, not by loop-nest or tensorize steps");
  // A step that does not apply says which.
  const Schedule bad{Trace{{Transform::unroll("z")}}};
  EXPECT_EQ(error_of(bad, gemm, avx2()), "trace step 0 unroll(z) is not applicable: no loop named 'z'");
}

}  // namespace
}  // namespace attune
