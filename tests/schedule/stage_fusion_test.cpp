// stage_fusion_test.cpp — compute_at and inline on multi-stage ops: what they build, and each
// refusal with its reason. (That the kernels they produce equal the reference is checked end to
// end by tests/e2e/random_trace_test.cpp, StageRandomTraces.)
#include <gtest/gtest.h>

#include "ir/error.hpp"
#include "ir/op.hpp"
#include "schedule/analysis.hpp"
#include "schedule/transform.hpp"

namespace attune {
namespace {

Op softmax() { return instantiate_template("softmax", {{"B", "2"}, {"M", "3"}, {"N", "5"}}); }

std::string refusal(const LoopNest& nest, const Transform& t) {
  const Applicability a = applicable(nest, t);
  return a ? "(applicable)" : a.reason;
}

int statements_below(const LoopNest& nest, const std::string& loop) {
  int n = 0;
  sched::for_each_stmt(nest.find_loop(loop)->body, [&](const Stmt&, const std::vector<const Node*>&) { ++n; });
  return n;
}

TEST(ComputeAt, SoftmaxRowsFuseIntoOneNest) {
  LoopNest nest = initial_nest(softmax());
  ASSERT_EQ(nest.body.size(), 5u);  // Mx init, Mx, S init, S, Y
  nest = apply(nest, Transform::compute_at("S", "s2.m"));
  nest = apply(nest, Transform::compute_at("Mx", "s2.m"));
  ASSERT_EQ(nest.body.size(), 1u);
  EXPECT_EQ(statements_below(nest, "s2.m"), 5);
  // The row's producers lost their own row loops: their indices are the consumer's now.
  EXPECT_EQ(nest.find_loop("s0.m"), nullptr);
  EXPECT_EQ(nest.find_loop("s1.init.b"), nullptr);
  EXPECT_NE(nest.find_loop("s0.n"), nullptr);
  EXPECT_NE(nest.str().find("Mx[s2.b, s2.m] max= X[s2.b, s2.m, s0.n]"), std::string::npos) << nest.str();
  // Rows are independent, so the fused row loop may run in parallel.
  EXPECT_TRUE(applicable(nest, Transform::parallel("s2.b")));
  EXPECT_TRUE(applicable(nest, Transform::vectorize("s0.n")));  // a max over n, one accumulator per lane
}

TEST(ComputeAt, RefusalsSayWhy) {
  const LoopNest nest = initial_nest(softmax());
  EXPECT_EQ(refusal(nest, Transform::compute_at("Mx", "s2.m")), "'Mx' is also read outside loop 's2.m'");
  EXPECT_EQ(refusal(nest, Transform::compute_at("Y", "s2.m")),
            "compute_at: 'Y' is not an intermediate of the op (one written by one stage and read by a later one)");
  EXPECT_EQ(refusal(nest, Transform::compute_at("S", "s0.m")),
            "loop 's0.m' does not come after the nests that compute 'S'");
  EXPECT_EQ(refusal(nest, Transform::compute_at("S", "nope")), "no loop named 'nope'");
  const LoopNest par = apply(nest, Transform::parallel("s2.b"));
  EXPECT_EQ(refusal(par, Transform::compute_at("S", "s2.m")), "compute_at inside parallel loop 's2.b'");
  const LoopNest split = apply(nest, Transform::split("s1.m", {2, 2}));
  EXPECT_EQ(refusal(split, Transform::compute_at("S", "s2.m")),
            "dimension 1 of 'S' is not written through one plain loop (split, fused or annotated)");
  const LoopNest gemm = initial_nest(instantiate_template("gemm", {{"M", "4"}, {"N", "4"}, {"K", "4"}}));
  EXPECT_EQ(refusal(gemm, Transform::compute_at("C", "n")), "compute_at: it applies to the stages of multi-stage ops");
}

TEST(Inline, ElementwiseIntermediateDisappears) {
  const Op op = instantiate_template("attention", {{"H", "2"}, {"T", "4"}, {"D", "3"}});
  LoopNest nest = initial_nest(op);
  nest = apply(nest, Transform::compute_inline("E"));
  EXPECT_EQ(nest.buffer("E"), nullptr);
  EXPECT_EQ(nest.str().find("E["), std::string::npos) << nest.str();
  EXPECT_NE(nest.str().find("Sum[s3.h, s3.i] += exp((Sc[s3.h, s3.i, s3.j] - Mx[s3.h, s3.i])"), std::string::npos)
      << nest.str();
}

TEST(Inline, RefusalsSayWhy) {
  const LoopNest nest = initial_nest(instantiate_template("attention", {{"H", "2"}, {"T", "4"}, {"D", "3"}}));
  EXPECT_EQ(refusal(nest, Transform::compute_inline("Mx")),
            "'Mx' is a reduction (init and update nests): it cannot be inlined");
  const LoopNest split = apply(nest, Transform::split("s2.j", {2, 2}));
  EXPECT_EQ(refusal(split, Transform::compute_inline("E")),
            "'E' is not written through one plain loop per dimension (split or fused)");
}

}  // namespace
}  // namespace attune
