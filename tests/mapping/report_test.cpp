// report_test.cpp — JSON and table output, determinism.
#include <gtest/gtest.h>

#include "hw/target.hpp"
#include "mapping/mapping.hpp"

namespace attune {
namespace {

TEST(MappingReport, JsonShape) {
  Target t = load_target("x86-avx2");
  Op op = parse_spec("tensor A[6, 4] f32; tensor B[4, 16] f32; tensor C[6, 16] f32; C[m, n] += A[m, k] * B[k, n]");
  MappingReport r = enumerate_mappings(op, t.intrinsic("avx2_fma_f32"));
  nlohmann::json j = to_json(r);
  EXPECT_EQ(j["one_to_one"], r.one_to_one);
  EXPECT_EQ(j["mappings"], r.mappings);
  ASSERT_TRUE(j["items"].is_array());
  // Broadcast A along n (j <- n) and, with the inputs swapped, B along m: two distinct tilings.
  EXPECT_EQ(r.mappings, 2);
  const auto& first = j["items"][0];
  EXPECT_EQ(first["intrinsic"], "avx2_fma_f32");
  EXPECT_EQ(first["valid"], true);
  EXPECT_EQ(first["loops"][1]["intrinsic_loop"], "j");
  EXPECT_EQ(first["loops"][1]["op_loops"], nlohmann::json::array({"n"}));
  EXPECT_EQ(first["loops"][1]["extent"], 8);
  EXPECT_EQ(first["operand_of"]["A"], "A");
  EXPECT_EQ(first["padding_waste"], 0.0);
  EXPECT_FALSE(first.contains("reason"));
}

TEST(MappingReport, DeterministicAndTableReadable) {
  Target t = load_target("nvidia-h200");
  Op op = parse_spec(
      "tensor I[1, 64, 58, 58] f16; tensor W[64, 64, 3, 3] f16; tensor O[1, 64, 56, 56] f32;"
      "O[n, k, p, q] += I[n, c, p + r - 1, q + s - 1] * W[k, c, r, s]");
  const Intrinsic& mma = t.intrinsic("wmma_16x16x16_f16f32");
  EXPECT_EQ(to_json(enumerate_mappings(op, mma)).dump(), to_json(enumerate_mappings(op, mma)).dump());
  std::string table = render_table(enumerate_mappings(op, mma));
  EXPECT_EQ(table.rfind("wmma_16x16x16_f16f32: 7 one-to-one matches, 35 mappings\n", 0), 0u) << table;
  EXPECT_NE(table.find("i<16"), std::string::npos);
  EXPECT_NE(table.find("invalid: I[2] 'p + r - 1' combines p and r"), std::string::npos) << table;
  std::string valid_only = render_table(enumerate_mappings(op, mma), false);
  EXPECT_EQ(valid_only.find("invalid"), std::string::npos);
}

TEST(MappingReport, ZeroCountsSayWhy) {
  Target t = load_target("nvidia-h200");
  Op eltwise =
      parse_spec("tensor A[16, 16] f16; tensor B[16, 16] f16; tensor C[16, 16] f32; C[m, n] += A[m, n] * B[m, n]");
  MappingReport r = enumerate_mappings(eltwise, t.intrinsic("wmma_16x16x16_f16f32"));
  EXPECT_EQ(r.mappings, 0);
  EXPECT_EQ(r.reason, "no reduction loop");
  EXPECT_EQ(to_json(r)["reason"], "no reduction loop");
  EXPECT_NE(render_table(r).find("(no reduction loop)"), std::string::npos);
  Op one_input = parse_spec("tensor A[16, 16] f16; tensor C[16] f32; C[m] += A[m, k]");
  EXPECT_EQ(enumerate_mappings(one_input, t.intrinsic("wmma_16x16x16_f16f32")).reason,
            "op has 1 input, intrinsic has 2");
}

}  // namespace
}  // namespace attune
