// dtype.cpp — names, sizes and kinds of the element types an Op's tensors may hold.
#include <string>

#include "ir/error.hpp"
#include "ir/op.hpp"

namespace attune {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::i8: return "i8";
    case DType::u8: return "u8";
    case DType::i32: return "i32";
  }
  return "?";
}

DType parse_dtype(std::string_view name) {
  if (name == "f32" || name == "float32") return DType::f32;
  if (name == "f16" || name == "float16") return DType::f16;
  if (name == "i8" || name == "int8") return DType::i8;
  if (name == "u8" || name == "uint8") return DType::u8;
  if (name == "i32" || name == "int32") return DType::i32;
  throw Error("unknown dtype '" + std::string(name) + "' (expected f32, f16, i8, u8 or i32)");
}

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f16: return 2;
    case DType::i8: return 1;
    case DType::u8: return 1;
    case DType::i32: return 4;
  }
  return 0;
}

bool is_float(DType t) { return t == DType::f32 || t == DType::f16; }

}  // namespace attune
