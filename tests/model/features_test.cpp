// Features: fixed length with names, sensitive to the schedule, and hidden vectors that read
// the producers' keys and nothing else (never the label).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ir/error.hpp"
#include "model/features.hpp"
#include "schedule/actions.hpp"
#include "schedule/transform.hpp"

namespace attune {
namespace {

std::size_t index_of(const std::string& name) {
  const auto& n = nest_feature_names();
  const auto it = std::find(n.begin(), n.end(), name);
  EXPECT_NE(it, n.end()) << name;
  return static_cast<std::size_t>(it - n.begin());
}

TEST(NestFeatures, FixedLengthForEveryFamilyAndSchedule) {
  for (const char* spec : {"gemm:M=64,N=48,K=40", "conv2d:N=1,H=14,W=14,C=8,K=16,R=3,S=3,stride=2,pad=1,layout=NHWC",
                           "depthwise_conv2d:N=1,H=12,W=12,C=16,R=3,S=3,stride=1,pad=1,layout=NHWC",
                           "conv2d_transpose:N=1,H=4,W=4,C=8,K=8,R=4,S=4,stride=2,pad=1,layout=NHWC"}) {
    const Op op = op_from_cli(spec);
    std::mt19937_64 rng(5);
    for (int i = 0; i < 10; ++i) {
      const auto f = nest_features(replay(op, random_trace(op, rng, 6)));
      EXPECT_EQ(f.size(), nest_feature_names().size()) << spec;
    }
  }
}

TEST(NestFeatures, SeeVectorizationUnrollingAndParallelism) {
  const Op op = op_from_cli("gemm:M=64,N=64,K=64");
  const auto base = nest_features(initial_nest(op));
  EXPECT_EQ(base[index_of("vector_lanes")], 1.f);
  EXPECT_EQ(base[index_of("parallel_loops")], 0.f);
  // innermost loop of the update is k (a reduction), then n, then m.
  EXPECT_EQ(base[index_of("loop0.reduction")], 1.f);
  EXPECT_EQ(base[index_of("loop1.reduction")], 0.f);
  EXPECT_NEAR(base[index_of("loop0.log_extent")], std::log2(65.0), 1e-5);
  EXPECT_NEAR(base[index_of("log_flops")], std::log2(1.0 + 2.0 * 64 * 64 * 64), 1e-3);

  Trace t;
  t.steps = {Transform::reorder({"m", "k", "n"}), Transform::split("n", {8, 8}), Transform::vectorize("n.1"),
             Transform::parallel("m")};
  const auto f = nest_features(replay(op, t));
  EXPECT_EQ(f[index_of("vector_lanes")], 8.f);
  EXPECT_EQ(f[index_of("parallel_loops")], 1.f);
  EXPECT_EQ(f[index_of("loop0.kind")], static_cast<float>(static_cast<int>(LoopKind::vectorized)));
  // The innermost loop walks C and B with unit stride and does not move A.
  EXPECT_EQ(f[index_of("buf0.inner_stride")], 1.f);  // C[m, n]
  EXPECT_EQ(f[index_of("buf1.inner_stride")], 0.f);  // A[m, k]
  EXPECT_EQ(f[index_of("buf2.inner_stride")], 1.f);  // B[k, n]
  EXPECT_NE(f, base);
}

TEST(NestFeatures, CacheBandsGrowWithTheCache) {
  const Op op = op_from_cli("gemm:M=256,N=256,K=256");
  const auto f = nest_features(initial_nest(op));
  // L1 (32 KiB) cannot hold the whole problem (768 KiB), L3 (32 MiB) can: the band grows, and
  // so does the reuse inside it.
  EXPECT_LT(f[index_of("buf1.L1.log_bytes")], f[index_of("buf1.L3.log_bytes")]);
  EXPECT_LE(f[index_of("buf1.L1.log_reuse")], f[index_of("buf1.L3.log_reuse")]);
  EXPECT_GT(f[index_of("L3.intensity")], f[index_of("L1.intensity")]);
}

TEST(HiddenFeatures, ReadTheProducersKeysInAFixedOrder) {
  const nlohmann::json vta = {{"insn", {{"LOAD", 5}, {"GEMM", 7}, {"total", 20}}},
                              {"uops", 33},
                              {"dma_bytes", {{"inp", 1024}}},
                              {"cycles", 999999}};
  const auto v = hidden_vector(vta, "vta");
  const auto& names = hidden_feature_names("vta");
  ASSERT_EQ(v.size(), names.size());
  auto at = [&](const std::string& n) {
    return v[static_cast<std::size_t>(std::find(names.begin(), names.end(), n) - names.begin())];
  };
  EXPECT_EQ(at("insn/LOAD"), 5.f);
  EXPECT_EQ(at("insn/GEMM"), 7.f);
  EXPECT_EQ(at("uops"), 33.f);
  EXPECT_EQ(at("dma_bytes/inp"), 1024.f);
  EXPECT_TRUE(std::isnan(at("insn/ALU")));  // absent
  for (const auto& n : names) EXPECT_EQ(n.find("cycles"), std::string::npos) << "the label is never a feature";

  const auto c = hidden_vector({{"fma", 12}, {"spill_stores", 3}}, "cpu");
  EXPECT_EQ(c.size(), hidden_feature_names("cpu").size());
  EXPECT_EQ(c[0], 12.f);
  for (float x : hidden_vector(nullptr, "cpu")) EXPECT_TRUE(std::isnan(x));
  EXPECT_THROW(hidden_vector(vta, "gpu"), Error);
}

}  // namespace
}  // namespace attune
