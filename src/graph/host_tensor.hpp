// graph/host_tensor.hpp — a tensor held in host memory: a model's weights and constants, the
// values constant folding computes, and the .npy files `attune run-model` reads and writes.
//
// Floats are kept as float; every integer type (ONNX int64, int32, bool) is widened to int64,
// which is all that shape arithmetic and index inputs need. Dense, row-major.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attune::graph {

enum class ElemType : std::uint8_t { f32, i64, i32, boolean };

std::string_view elem_type_name(ElemType t);  // "f32", "i64", "i32", "bool"
bool is_integer(ElemType t);                   // everything but f32

using Shape = std::vector<std::int64_t>;

// Elements of `shape`; throws Error when a dimension is negative or the count passes 2^40.
std::int64_t element_count(const Shape& shape);
std::string shape_str(const Shape& shape);  // "[1, 3, 224, 224]"

struct HostTensor {
  ElemType type = ElemType::f32;
  Shape shape;
  std::vector<float> f;         // type f32: the elements
  std::vector<std::int64_t> i;  // integer types: the elements, widened

  std::int64_t size() const { return static_cast<std::int64_t>(type == ElemType::f32 ? f.size() : i.size()); }
  // Element k as a double / as an integer (floats truncate), whatever the type.
  double real(std::int64_t k) const;
  std::int64_t integer(std::int64_t k) const;
  // Whether every element equals the first (a broadcast constant that can be written inline).
  bool uniform() const;

  static HostTensor floats(Shape shape, std::vector<float> data);
  static HostTensor integers(ElemType type, Shape shape, std::vector<std::int64_t> data);
};

}  // namespace attune::graph
