// families_test.cpp — every operator family on every shipped intrinsic: enumeration never
// fails, counts agree with the items, a zero count carries a reason; plus the stride rule,
// padding waste and a few family-specific counts.
#include <gtest/gtest.h>

#include <cmath>

#include "hw/target.hpp"
#include "ir/error.hpp"
#include "mapping/mapping.hpp"

namespace attune {
namespace {

using Params = std::map<std::string, std::string>;

struct Family {
  std::string name, templ;
  Params params;
};

std::vector<Family> families() {
  return {
      // clang-format off
      // clang-format off
      {"gemm", "gemm", {{"M", "32"}, {"N", "32"}, {"K", "32"}}},
      {"gemv", "gemv", {{"M", "32"}, {"K", "64"}}},
      {"batch_matmul", "batch_matmul", {{"B", "2"}, {"M", "32"}, {"N", "16"}, {"K", "16"}}},
      {"conv1d", "conv1d", {{"N", "1"}, {"L", "32"}, {"C", "16"}, {"K", "16"}, {"R", "3"}, {"stride", "2"}, {"pad", "1"}}},
      {"conv2d_nhwc", "conv2d",
       {{"N", "1"}, {"H", "14"}, {"W", "14"}, {"C", "16"}, {"K", "32"}, {"R", "3"}, {"S", "3"}, {"pad", "1"}, {"layout", "NHWC"}}},
      {"conv2d_dilated", "conv2d",
       {{"N", "1"}, {"H", "14"}, {"W", "14"}, {"C", "16"}, {"K", "16"}, {"R", "3"}, {"S", "3"}, {"dilation", "2"}, {"layout", "NHWC"}}},
      {"grouped", "conv2d",
       {{"N", "1"}, {"H", "14"}, {"W", "14"}, {"C", "32"}, {"K", "32"}, {"R", "3"}, {"S", "3"}, {"groups", "4"}, {"layout", "NHWC"}}},
      {"depthwise", "depthwise_conv2d", {{"N", "1"}, {"H", "14"}, {"W", "14"}, {"C", "16"}, {"R", "3"}, {"S", "3"}, {"pad", "1"}}},
      {"conv3d", "conv3d",
       {{"N", "1"}, {"D", "4"}, {"H", "8"}, {"W", "8"}, {"C", "16"}, {"K", "16"}, {"T", "3"}, {"R", "3"}, {"S", "3"}}},
      {"transposed", "conv2d_transpose",
       {{"N", "1"}, {"H", "8"}, {"W", "8"}, {"C", "16"}, {"K", "16"}, {"R", "3"}, {"S", "3"}, {"stride", "2"}, {"pad", "1"}}},
      {"capsule", "conv2d_capsule",
       {{"N", "1"}, {"H", "8"}, {"W", "8"}, {"C", "8"}, {"K", "8"}, {"R", "3"}, {"S", "3"}, {"capsule", "4"}}},
  };
  // clang-format on
  // clang-format on
}

std::vector<Intrinsic> all_intrinsics() {
  std::vector<Intrinsic> out;
  for (const auto& n : list_targets())
    for (const auto& in : load_target(n).intrinsics) out.push_back(in);
  return out;
}

TEST(MappingFamilies, EveryFamilyOnEveryIntrinsic) {
  std::vector<Intrinsic> intrinsics = all_intrinsics();
  ASSERT_GE(intrinsics.size(), 9u);
  for (const auto& f : families()) {
    for (const char* dtype : {"f32", "f16", "int8"}) {
      Params p = f.params;
      p["dtype"] = dtype;
      Op op = instantiate_template(f.templ, p);
      for (const auto& in : intrinsics) {
        SCOPED_TRACE(f.name + " " + dtype + " on " + in.name);
        MappingReport r;
        ASSERT_NO_THROW(r = enumerate_mappings(op, in));
        int valid = 0, valid11 = 0;
        for (const auto& m : r.items) {
          valid += m.valid;
          valid11 += m.valid && m.one_to_one();
          EXPECT_EQ(m.loops.size(), in.compute.vars.size());
          if (!m.valid) {
            EXPECT_FALSE(m.reason.empty());
          } else {
            EXPECT_GE(m.padded_iterations, m.useful_iterations);
          }
        }
        EXPECT_EQ(valid, r.mappings);
        EXPECT_EQ(valid11, r.one_to_one);
        EXPECT_LE(r.one_to_one, r.mappings);
        if (r.mappings == 0) {
          EXPECT_FALSE(r.reason.empty());
        }
        nlohmann::json j = to_json(r);
        EXPECT_EQ(j["mappings"], r.mappings);
        EXPECT_EQ(j["items"].size(), r.items.size());
      }
    }
  }
}

const Target& h200() {
  static const Target t = load_target("nvidia-h200");
  return t;
}

Op fam(const std::string& name, const std::string& dtype) {
  for (auto f : families())
    if (f.name == name) {
      f.params["dtype"] = dtype;
      return instantiate_template(f.templ, f.params);
    }
  throw Error("no family " + name);
}

TEST(MappingFamilies, SpecificCounts) {
  const Intrinsic& mma = h200().intrinsic("wmma_16x16x16_f16f32");
  // b indexes every operand: it stays outside the intrinsic.
  EXPECT_EQ(enumerate_mappings(fam("batch_matmul", "f16"), mma).mappings, 1);
  // c indexes input, weight and output: no loop can be j.
  MappingReport dw = enumerate_mappings(fam("depthwise", "f16"), mma);
  EXPECT_EQ(dw.mappings, 0);
  EXPECT_EQ(dw.reason.rfind("no one-to-one match satisfies the access rule", 0), 0u) << dw.reason;
  // gemv has one spatial loop; the mma needs two.
  EXPECT_EQ(enumerate_mappings(fam("gemv", "f16"), mma).reason, "op has 1 spatial loop, intrinsic needs 2");
  // NHWC conv2d: i <- n,p,q; kk <- r,s,c; p+r and q+s excluded, as in NCHW.
  MappingReport c = enumerate_mappings(fam("conv2d_nhwc", "f16"), mma);
  EXPECT_EQ(c.one_to_one, 7);
  EXPECT_EQ(c.mappings, 35);
}

TEST(MappingFamilies, GemvOnVnni) {
  // y[m] += A[m,k] * x[k] onto C[j] += A[k] * B[k,j]: x plays the broadcast A, the matrix B.
  const Target avx512 = load_target("x86-avx512");
  Op op = parse_spec("tensor A[64, 32] i8; tensor x[32] u8; tensor y[64] i32; y[m] += A[m, k] * x[k]");
  MappingReport r = enumerate_mappings(op, avx512.intrinsic("avx512_vnni_u8s8s32"));
  ASSERT_EQ(r.mappings, 1) << render_table(r);
  EXPECT_EQ(r.items.front().valid ? r.items.front().operand_of.at("A") : "", "x");
}

TEST(MappingFamilies, DtypeMismatchIsReportedNotHidden) {
  const Intrinsic& mma = h200().intrinsic("wmma_16x16x16_f16f32");
  MappingReport r = enumerate_mappings(fam("gemm", "f32"), mma);
  EXPECT_EQ(r.mappings, 0);
  EXPECT_EQ(r.reason, "dtype mismatch: dtype f32 does not match intrinsic f16");
  bool seen = false;
  for (const auto& m : r.items)
    if (m.str() == "i<-m j<-n k<-k") {
      seen = true;
      EXPECT_FALSE(m.valid);
      EXPECT_EQ(m.reason, "dtype f32 does not match intrinsic f16");
    }
  EXPECT_TRUE(seen);
  MappingOptions structure_only;
  structure_only.ignore_dtype = true;
  EXPECT_EQ(enumerate_mappings(fam("gemm", "f32"), mma, structure_only).mappings, 1);
  // int8 gemm is s8 x s8; VNNI wants u8 x s8.
  const Target avx512 = load_target("x86-avx512");
  EXPECT_EQ(enumerate_mappings(fam("gemm", "int8"), avx512.intrinsic("avx512_vnni_u8s8s32")).reason,
            "dtype mismatch: dtype i8 does not match intrinsic u8");
}

TEST(MappingFamilies, StridedConvStillMaps) {
  Op op = parse_spec(
      "tensor I[1, 16, 33, 33] f16; tensor W[32, 16, 3, 3] f16; tensor O[1, 32, 16, 16] f32;"
      "O[n, k, p, q] += I[n, c, p*2 + r, q*2 + s] * W[k, c, r, s]");
  MappingReport r = enumerate_mappings(op, h200().intrinsic("wmma_16x16x16_f16f32"));
  EXPECT_EQ(r.one_to_one, 7);
  bool found = false;
  for (const auto& m : r.items) found = found || (m.valid && m.str() == "i<-p j<-k k<-c");
  EXPECT_TRUE(found);
  // A negative stride is not a stride.
  Op neg = parse_spec(
      "tensor I[1, 16, 20] f16; tensor W[16, 16, 3] f16; tensor O[1, 16, 18] f32;"
      "O[n, k, p] += I[n, c, 19 - p - r] * W[k, c, r]");
  int checked = 0;
  for (const auto& m : enumerate_mappings(neg, h200().intrinsic("wmma_16x16x16_f16f32")).items)
    if (m.str() == "i<-p j<-k k<-c") {
      ++checked;
      EXPECT_EQ(m.reason, "I[2] '-p - r + 19' has a negative stride for p");
    }
  EXPECT_EQ(checked, 1);
}

TEST(MappingFamilies, PaddingWasteOfSmallGemm) {
  Op op = parse_spec("tensor A[10, 10] f16; tensor B[10, 10] f16; tensor C[10, 10] f32; C[m, n] += A[m, k] * B[k, n]");
  const Intrinsic& mma = h200().intrinsic("wmma_16x16x16_f16f32");
  MappingReport r = enumerate_mappings(op, mma);
  ASSERT_EQ(r.mappings, 1);
  const Mapping* m = nullptr;
  for (const auto& x : r.items)
    if (x.valid) m = &x;
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->useful_iterations, 1000);
  EXPECT_EQ(m->padded_iterations, 4096);
  EXPECT_NEAR(m->padding_waste, 1.0 - 1000.0 / 4096.0, 1e-12);

  MappingOptions no_pad;
  no_pad.no_pad = true;
  MappingReport np = enumerate_mappings(op, mma, no_pad);
  EXPECT_EQ(np.mappings, 0);
  EXPECT_EQ(np.reason, "every mapping needs padding and padding is off");
  for (const auto& x : np.items)
    if (x.str() == "i<-m j<-n k<-k") {
      EXPECT_EQ(x.reason, "extent 10 of m does not fill i (16) and padding is off");
    }
}

TEST(MappingFamilies, FusedLoopsPadAsOne) {
  // p*q = 7*7 = 49 rows fused onto i: 64 padded rows, not 16*16.
  Op op = parse_spec(
      "tensor I[1, 16, 9, 9] f16; tensor W[16, 16, 3, 3] f16; tensor O[1, 16, 7, 7] f32;"
      "O[n, k, p, q] += I[n, c, p + r, q + s] * W[k, c, r, s]");
  MappingReport r = enumerate_mappings(op, h200().intrinsic("wmma_16x16x16_f16f32"));
  const Mapping* fused = nullptr;
  for (const auto& m : r.items)
    if (m.str() == "i<-p,q j<-k k<-c") fused = &m;
  ASSERT_NE(fused, nullptr);
  EXPECT_TRUE(fused->valid);
  EXPECT_EQ(fused->loops[0].op_extent, 49);
  EXPECT_EQ(fused->padded_iterations, 64 * 16 * 16 * 3 * 3);
}

}  // namespace
}  // namespace attune
