// CUDA spellings of attune's dtypes, shared by the kernel emitter and the bundle's harness.
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

}  // namespace attune::cuda
