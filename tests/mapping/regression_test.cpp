// regression_test.cpp — the AMOS counts: NCHW conv2d onto the 16x16x16 mma has 7 valid
// one-to-one matches and 35 mappings; GEMM has 1.
#include <gtest/gtest.h>

#include <set>

#include "hw/target.hpp"
#include "mapping/mapping.hpp"

namespace attune {
namespace {

const Intrinsic& mma16() {
  static const Target t = load_target("nvidia-h200");
  return t.intrinsic("wmma_16x16x16_f16f32");
}

const char* kConv2dNchw =
    "tensor I[1, 64, 58, 58] f16; tensor W[64, 64, 3, 3] f16; tensor O[1, 64, 56, 56] f32;"
    "O[n, k, p, q] += I[n, c, p + r - 1, q + s - 1] * W[k, c, r, s]";

const char* kGemm = "tensor A[64, 32] f16; tensor B[32, 48] f16; tensor C[64, 48] f32; C[m, n] += A[m, k] * B[k, n]";

std::set<std::string> valid_one_to_one(const MappingReport& r) {
  std::set<std::string> out;
  for (const auto& m : r.items)
    if (m.valid && m.one_to_one()) out.insert(m.str());
  return out;
}

TEST(MappingRegression, Conv2dNchwOnMma16Has7And35) {
  MappingReport r = enumerate_mappings(parse_spec(kConv2dNchw), mma16());
  EXPECT_EQ(r.one_to_one, 7);
  EXPECT_EQ(r.mappings, 35);
  EXPECT_EQ(r.reason, "");
  // i takes n, p or q; j takes k; kk takes c, r or s; p+r and q+s put i and kk in one dim.
  EXPECT_EQ(valid_one_to_one(r),
            (std::set<std::string>{"i<-n j<-k k<-c", "i<-n j<-k k<-r", "i<-n j<-k k<-s", "i<-p j<-k k<-c",
                                   "i<-p j<-k k<-s", "i<-q j<-k k<-c", "i<-q j<-k k<-r"}));
  for (const auto& m : r.items) {
    if (m.str() == "i<-p j<-k k<-r") {
      EXPECT_FALSE(m.valid);
      EXPECT_EQ(m.reason, "I[2] 'p + r - 1' combines p and r");
    }
    if (m.valid) {
      EXPECT_EQ(m.operand_of.at("A"), "I");
      EXPECT_EQ(m.operand_of.at("B"), "W");
      EXPECT_EQ(m.operand_of.at("C"), "O");
    }
  }
  // Every mapping listed once.
  std::set<std::string> all;
  for (const auto& m : r.items) EXPECT_TRUE(all.insert(m.str()).second) << m.str();
}

TEST(MappingRegression, Conv2dTemplateGivesTheSameCounts) {
  // clang-format off
  Op op = instantiate_template("conv2d", {{"N", "1"}, {"H", "56"}, {"W", "56"}, {"C", "64"}, {"K", "64"}, {"R", "3"},
                                          {"S", "3"}, {"pad", "1"}, {"layout", "NCHW"}, {"dtype", "f16"}});
  // clang-format on
  MappingReport r = enumerate_mappings(op, mma16());
  EXPECT_EQ(r.one_to_one, 7);
  EXPECT_EQ(r.mappings, 35);
}

TEST(MappingRegression, GemmOnMma16HasOne) {
  MappingReport r = enumerate_mappings(parse_spec(kGemm), mma16());
  EXPECT_EQ(r.one_to_one, 1);
  EXPECT_EQ(r.mappings, 1);
  ASSERT_EQ(valid_one_to_one(r), std::set<std::string>{"i<-m j<-n k<-k"});
}

TEST(MappingRegression, GemmWithInputsWrittenBackwardsStillMaps) {
  // The operand pairing is tried both ways: B*A maps as well as A*B.
  MappingReport r = enumerate_mappings(
      parse_spec("tensor A[64, 32] f16; tensor B[32, 48] f16; tensor C[64, 48] f32; C[m, n] += B[k, n] * A[m, k]"),
      mma16());
  EXPECT_EQ(r.mappings, 1);
}

TEST(MappingRegression, AsymmetricShapeKeepsBothOrientations) {
  // On m16n8k16, m in 16s and n in 8s differs from n in 16s and m in 8s.
  static const Target t = load_target("nvidia-h200");
  MappingReport r = enumerate_mappings(parse_spec(kGemm), t.intrinsic("mma_m16n8k16_f16f32"));
  EXPECT_EQ(r.one_to_one, 2);
  EXPECT_EQ(valid_one_to_one(r), (std::set<std::string>{"i<-m j<-n k<-k", "i<-n j<-m k<-k"}));
}

TEST(MappingRegression, Conv2dOnVtaGemm) {
  // VTA's 1x16x16 is not square: besides the mma's 7 (i <- n|p|q, one pixel per batch row),
  // the swapped pairing gives 7 more (i <- k, j <- n|p|q: 16 pixels through the weight port).
  Target vta = load_target("vta");
  // clang-format off
  Op op = instantiate_template("conv2d", {{"N", "1"}, {"H", "14"}, {"W", "14"}, {"C", "32"}, {"K", "32"}, {"R", "3"},
                                          {"S", "3"}, {"pad", "1"}, {"layout", "NCHW"}, {"dtype", "int8"}});
  // clang-format on
  MappingReport r = enumerate_mappings(op, vta.intrinsic("vta_gemm"));
  EXPECT_EQ(r.one_to_one, 14);
  EXPECT_EQ(r.mappings, 70);
  int direct = 0;
  for (const auto& m : r.items) direct += m.valid && m.operand_of.at("B") == "W";
  EXPECT_EQ(direct, 35);
}

}  // namespace
}  // namespace attune
