// TensorizePlan: mapping choice, the reshaped dimensions, refusals with reasons, replaying a recorded step.
#include <gtest/gtest.h>

#include "ir/error.hpp"
#include "schedule/schedule.hpp"
#include "schedule/tensorize.hpp"

namespace attune {
namespace {

const Target& h200() {
  static const Target t = load_target("nvidia-h200");
  return t;
}
const Target& avx2() {
  static const Target t = load_target("x86-avx2");
  return t;
}

TEST(Tensorize, GemmOnWmmaIsOneMappingWithPadding) {
  const Op op = op_from_cli("gemm:M=40,N=24,K=20,dtype=f16");
  const TensorizePlan p = plan_tensorize(op, h200().intrinsic("wmma_16x16x16_f16f32"));
  EXPECT_EQ(p.mapping_number, 1);
  EXPECT_EQ(p.m.op_loops, std::vector<std::string>{"m"});
  EXPECT_EQ(p.n.op_loops, std::vector<std::string>{"n"});
  EXPECT_EQ(p.k.op_loops, std::vector<std::string>{"k"});
  EXPECT_EQ(p.m.tiles(), 3);  // 40 -> 48: padded
  EXPECT_EQ(p.k.tiles(), 2);  // 20 -> 32
  EXPECT_EQ(p.a_tensor, "A");
  EXPECT_EQ(p.c_tensor, "C");
  EXPECT_TRUE(p.outer_spatial.empty());
  EXPECT_NE(p.str().find("padded to 48"), std::string::npos) << p.str();
}

TEST(Tensorize, ConvDefaultIsImplicitGemm) {
  const Op op = op_from_cli("conv2d:N=1,H=8,W=8,C=16,K=16,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f16");
  const TensorizePlan p = plan_tensorize(op, h200().intrinsic("wmma_16x16x16_f16f32"));
  // The default puts the most iterations on the intrinsic: every reduction loop fused into k.
  EXPECT_TRUE(p.outer_reduction.empty()) << p.str();
  EXPECT_EQ(p.k.extent, 16 * 3 * 3) << p.str();
  EXPECT_EQ(p.m.extent * p.n.extent * p.outer_count(), 1 * 16 * 8 * 8) << p.str();
}

TEST(Tensorize, AvxPutsColumnsOnLanes) {
  const Op op = op_from_cli("gemm:M=5,N=20,K=3");
  const TensorizePlan p = plan_tensorize(op, avx2().intrinsic("avx2_fma_f32"));
  EXPECT_EQ(p.n.tile, 8);
  EXPECT_EQ(p.m.tile, 1);
  EXPECT_EQ(p.n.tiles(), 3);
}

TEST(TensorizeErrors, MappingNumberOutOfRange) {
  const Op op = op_from_cli("gemm:M=16,N=16,K=16,dtype=f16");
  try {
    plan_tensorize(op, h200().intrinsic("wmma_16x16x16_f16f32"), 7);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "--mapping 7: wmma_16x16x16_f16f32 has 2 mapping candidates for this op (1..2)");
  }
}

TEST(TensorizeErrors, DtypeMismatchHasNoValidMapping) {
  const Op op = op_from_cli("gemm:M=16,N=16,K=16");  // f32: no f32 Tensor Core intrinsic here
  try {
    plan_tensorize(op, h200().intrinsic("wmma_16x16x16_f16f32"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no valid mapping"), std::string::npos) << e.what();
  }
}

TEST(TensorizeErrors, InvalidMappingIsRefusedWithItsReason) {
  const Op op = op_from_cli("conv2d:N=1,H=8,W=8,C=16,K=16,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f16");
  const Intrinsic& in = h200().intrinsic("wmma_16x16x16_f16f32");
  const MappingReport r = enumerate_mappings(op, in);
  int invalid = 0;
  for (std::size_t i = 0; i < r.items.size() && !invalid; ++i)
    if (!r.items[i].valid) invalid = static_cast<int>(i) + 1;
  ASSERT_GT(invalid, 0);
  EXPECT_FALSE(tensorize_applicable(op, in, r.items[invalid - 1]));
  try {
    plan_tensorize(op, in, invalid);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is invalid"), std::string::npos) << e.what();
  }
}

// A plan's step, written and read by the schedule codec, replays to the same plan.
TEST(TensorizeStep, RoundTripsAndReplays) {
  const Op op = op_from_cli("conv2d:N=1,H=8,W=8,C=16,K=16,R=3,S=3,stride=1,pad=1,layout=NHWC,dtype=f16");
  const Intrinsic& in = h200().intrinsic("mma_m16n8k16_f16f32");
  const MappingReport r = enumerate_mappings(op, in);
  for (std::size_t i = 0; i < r.items.size(); ++i) {
    if (!r.items[i].valid) continue;
    const TensorizePlan p = plan_tensorize(op, in, static_cast<int>(i) + 1);
    Schedule s;
    s.tensorize = p.step();
    const Schedule back = schedule_from_string(schedule_to_string(s));
    ASSERT_TRUE(back.tensorize.has_value());
    const TensorizePlan q = tensorize_plan(op, h200(), *back.tensorize);
    EXPECT_EQ(q.mapping_number, p.mapping_number);
    EXPECT_EQ(q.step(), p.step());
    EXPECT_EQ(q.str(), p.str());
  }
}

TEST(TensorizeStep, ScheduleReplaysAndDefaultsWhenAbsent) {
  const Op op = op_from_cli("gemm:M=16,N=16,K=16,dtype=f16");
  TensorizePlan p = plan_tensorize(op, h200().intrinsic("wmma_16x16x16_f16f32"));
  p.schedule = {3, 2, false};
  EXPECT_EQ(tensorize_plan(op, h200(), p.step()).schedule, p.schedule);
  TensorizeStep old = p.step();
  old.schedule.reset();  // a step recorded before schedules existed replays with the default
  EXPECT_EQ(tensorize_plan(op, h200(), old).schedule, TensorizeSchedule{});
}

TEST(TensorizeStep, StaleLoopsAreRefused) {
  const Op op = op_from_cli("gemm:M=16,N=16,K=16,dtype=f16");
  TensorizeStep s = plan_tensorize(op, h200().intrinsic("wmma_16x16x16_f16f32")).step();
  (*s.loops)["i"] = {"n"};
  try {
    tensorize_plan(op, h200(), s);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("tensorize step: mapping #", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find(R"(the step recorded {"i":["n"])"), std::string::npos) << e.what();
  }
  s.loops.reset();  // not recorded: not checked
  EXPECT_NO_THROW(tensorize_plan(op, h200(), s));
  s.intrinsic = "nope";
  EXPECT_THROW(tensorize_plan(op, h200(), s), Error);
}

}  // namespace
}  // namespace attune
