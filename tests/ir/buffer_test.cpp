// buffer_test.cpp — half conversion, Buffer storage and conversions, random fill, make_buffers
// and compare.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "ir/buffer.hpp"
#include "ir/error.hpp"

namespace attune {
namespace {

TEST(Half, EveryBitPatternRoundTrips) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    float f = half_to_float(static_cast<std::uint16_t>(h));
    bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
    if (nan) {
      EXPECT_TRUE(std::isnan(f)) << h;
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f)))) << h;
    } else {
      EXPECT_EQ(float_to_half(f), h) << h;
    }
  }
}

TEST(Half, KnownValuesAndRounding) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // halfway to the next step: rounds to even (inf)
  EXPECT_EQ(float_to_half(65519.0f), 0x7bff);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);     // smallest subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);     // tie: to even (zero)
  EXPECT_EQ(float_to_half(std::ldexp(3.0f, -26)), 0x0001);     // above the tie
  EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)), 0x0002);     // tie between 1 and 2: to even
  EXPECT_EQ(float_to_half(std::ldexp(1023.5f, -24)), 0x0400);  // rounds up into the normals
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::nanf("")))));
}

TEST(Buffer, StorageAndConversions) {
  Buffer b(DType::i8, {3, 5});
  EXPECT_EQ(b.numel(), 15);
  EXPECT_EQ(b.bytes(), 15u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % 64, 0u);
  for (std::int64_t i = 0; i < b.numel(); ++i) EXPECT_EQ(b.get(i), 0);
  b.set(0, 200);
  b.set(1, -3.5);
  b.set(2, 2.4);
  b.set(3, std::nan(""));
  EXPECT_EQ(b.get(0), 127);
  EXPECT_EQ(b.get(1), -4);
  EXPECT_EQ(b.get(2), 2);
  EXPECT_EQ(b.get(3), 0);
  Buffer u(DType::u8, {2});
  u.set(0, -1);
  u.set(1, 300);
  EXPECT_EQ(u.get(0), 0);
  EXPECT_EQ(u.get(1), 255);
  Buffer w(DType::i32, {1});
  w.set(0, 1e12);
  EXPECT_EQ(w.get(0), 2147483647);
  Buffer h(DType::f16, {1});
  h.set(0, 0.1);
  EXPECT_EQ(h.get(0), half_to_float(float_to_half(0.1f)));

  Buffer copy = b;
  copy.set(0, 1);
  EXPECT_EQ(b.get(0), 127);
  EXPECT_NE(copy.data(), b.data());
  copy.fill_zero();
  EXPECT_EQ(copy.get(1), 0);
}

TEST(Buffer, RandomFillIsDeterministicAndInRange) {
  struct Range {
    DType t;
    double lo, hi;
  };
  for (auto r : {Range{DType::f32, -1, 1}, Range{DType::f16, -1, 1}, Range{DType::i8, -8, 7}, Range{DType::u8, 0, 15},
                 Range{DType::i32, -64, 63}}) {
    Buffer a(r.t, {1000}), b(r.t, {1000}), c(r.t, {1000});
    a.fill_random(7);
    b.fill_random(7);
    c.fill_random(8);
    double lo = 1e9, hi = -1e9;
    bool differs = false;
    for (std::int64_t i = 0; i < 1000; ++i) {
      EXPECT_EQ(a.get(i), b.get(i));
      differs = differs || a.get(i) != c.get(i);
      lo = std::min(lo, a.get(i));
      hi = std::max(hi, a.get(i));
    }
    EXPECT_TRUE(differs);
    EXPECT_GE(lo, r.lo);
    EXPECT_LE(hi, r.hi);
    EXPECT_LT(lo, r.lo + 0.2 * (r.hi - r.lo));  // spread over the range
    EXPECT_GT(hi, r.hi - 0.2 * (r.hi - r.lo));
  }
}

TEST(Buffer, MakeBuffers) {
  Op op = instantiate_template("gemm", {{"M", "3"}, {"N", "4"}, {"K", "5"}, {"epilogue", "bias"}});
  auto bufs = make_buffers(op, 100);
  ASSERT_EQ(bufs.size(), 4u);
  EXPECT_EQ(bufs[2].shape(), (std::vector<std::int64_t>{3, 4}));
  for (std::int64_t i = 0; i < bufs[2].numel(); ++i) EXPECT_EQ(bufs[2].get(i), 0);
  Buffer a(DType::f32, {3, 5}), bias(DType::f32, {4});
  a.fill_random(100);
  bias.fill_random(103);
  EXPECT_TRUE(compare(bufs[0], a).ok);
  EXPECT_TRUE(compare(bufs[3], bias).ok);
}

TEST(Buffer, Compare) {
  Buffer want(DType::f32, {10});
  want.fill_random(1);
  Buffer got = want;
  Comparison c = compare(got, want);
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.max_abs_error, 0);
  EXPECT_EQ(c.first_bad, -1);
  got.set(6, want.get(6) + 0.01);
  c = compare(got, want);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.first_bad, 6);
  EXPECT_NEAR(c.max_abs_error, 0.01, 1e-6);
  EXPECT_TRUE(compare(got, want, 0.1).ok);
  EXPECT_NE(c.str().find("index 6"), std::string::npos);

  Buffer iw(DType::i32, {4}), ig(DType::i32, {4});
  EXPECT_TRUE(compare(ig, iw).ok);
  ig.set(2, 1);
  EXPECT_FALSE(compare(ig, iw, 1e9).ok);
  EXPECT_EQ(compare(ig, iw).first_bad, 2);
  EXPECT_THROW(compare(Buffer(DType::f32, {4}), Buffer(DType::f32, {5})), Error);
}

}  // namespace
}  // namespace attune
