// CUDA spellings of attune's dtypes, shared by the kernel emitters and the bundle's harnesses.
#pragma once

#include <string>

#include "ir/op.hpp"

namespace attune::cuda {

inline std::string ctype(DType t) {
  switch (t) {
    case DType::f32: return "float";
    case DType::f16: return "__half";
    case DType::i8: return "signed char";
    case DType::u8: return "unsigned char";
    case DType::i32: return "int";
  }
  return "float";
}

inline std::string zero_of(DType t) { return t == DType::f16 ? "__float2half(0.0f)" : "0"; }

// An element (or value) of type `t` as a float expression.
inline std::string to_float(DType t, const std::string& e) {
  return t == DType::f16 ? "__half2float(" + e + ")" : "(float)" + e;
}

// A float value converted for a store into a `t` tensor: f16 rounds to nearest, integers
// truncate toward zero and wrap (through long long), as stage_evaluator.cpp's cast_to does.
inline std::string from_float(DType t, const std::string& v) {
  if (t == DType::f32) return v;
  if (t == DType::f16) return "__float2half(" + v + ")";
  return "(" + ctype(t) + ")(long long)(" + v + ")";
}

// The includes and helpers every bundle harness starts with: CK(), to_d(), fill(), time_ms()
// (harness.cpp).
const char* harness_prelude();

}  // namespace attune::cuda
