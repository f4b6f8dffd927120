// half.cpp — IEEE 754 binary16 <-> binary32 conversion (round to nearest even; subnormals,
// infinities and NaNs preserved), written out bit by bit so f16 buffers need no compiler support.
#include <bit>
#include <cmath>
#include <cstdint>

#include "ir/buffer.hpp"

namespace attune {

float half_to_float(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    float mag = std::ldexp(static_cast<float>(mant), -24);  // zero or subnormal: mant * 2^-24
    return sign ? -mag : mag;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

std::uint16_t float_to_half(float f) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  int exp = static_cast<int>((bits >> 23) & 0xffu);
  std::uint32_t mant = bits & 0x7fffffu;
  if (exp == 0xff) {
    if (mant == 0) return sign | 0x7c00u;                              // infinity
    return static_cast<std::uint16_t>(sign | 0x7e00u | (mant >> 13));  // quiet NaN
  }
  int e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00u;  // overflow to infinity
  if (e <= 0) {
    if (e < -10) return sign;  // below half the smallest subnormal: zero
    std::uint32_t m = mant | 0x800000u;
    int shift = 14 - e;
    std::uint32_t hm = m >> shift;
    std::uint32_t rem = m & ((1u << shift) - 1);
    std::uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (hm & 1u))) ++hm;  // may carry into the smallest normal
    return static_cast<std::uint16_t>(sign | hm);
  }
  std::uint32_t hm = (static_cast<std::uint32_t>(e) << 10) | (mant >> 13);
  std::uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (hm & 1u))) ++hm;  // may carry up to infinity
  return static_cast<std::uint16_t>(sign | hm);
}

}  // namespace attune
