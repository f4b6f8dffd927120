// c_math.cpp — see c_math.hpp. The polynomials are the textbook ones: exp by Cody-Waite range
// reduction (x = k ln2 + r, |r| <= ln2/2) and the degree-7 Taylor polynomial of e^r, whose
// truncation error (|r|^8/8! < 6e-9) sits below float rounding; erf by Abramowitz & Stegun
// 7.1.26 (|error| <= 1.5e-7); tanh from exp.
#include "codegen/cpu/c_math.hpp"

namespace attune::cgen {

const std::string& math_prelude() {
  static const std::string text = R"(#include <math.h>

/* Elementwise math of multi-stage ops, branch-free so that omp simd loops vectorise.
   attune_exp: relative error < 5e-7 for x in [-87, 88]; x below -87 gives exp(-87) (< 2e-38),
   above 88 gives exp(88). attune_erf, attune_tanh: absolute error < 5e-7. */
static inline float attune_exp(float x) {
  x = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
  const float k = __builtin_rintf(x * 1.44269504088896341f);
  float r = x - k * 0.693145751953125f;
  r = r - k * 1.428606820309417232e-06f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int bits = ((int)k + 127) << 23;
  float scale;
  __builtin_memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}
static inline float attune_erf(float x) {
  const float a = fabsf(x);
  const float t = 1.0f / (1.0f + 0.3275911f * a);
  float p = 1.061405429f;
  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  const float y = 1.0f - p * t * attune_exp(-a * a);
  return x < 0.0f ? -y : y;
}
static inline float attune_tanh(float x) {
  const float a = fabsf(x);
  const float y = 1.0f - 2.0f / (attune_exp(2.0f * a) + 1.0f);
  return x < 0.0f ? -y : y;
}
static inline float attune_max(float a, float b) { return a > b ? a : b; }
static inline float attune_min(float a, float b) { return a < b ? a : b; }

)";
  return text;
}

}  // namespace attune::cgen
