// host_tensor.cpp — HostTensor helpers (host_tensor.hpp).
#include "graph/host_tensor.hpp"

#include "ir/error.hpp"

namespace attune::graph {

std::string_view elem_type_name(ElemType t) {
  switch (t) {
    case ElemType::f32: return "f32";
    case ElemType::i64: return "i64";
    case ElemType::i32: return "i32";
    case ElemType::boolean: return "bool";
  }
  return "?";
}

bool is_integer(ElemType t) { return t != ElemType::f32; }

std::int64_t element_count(const Shape& shape) {
  constexpr std::int64_t kMax = std::int64_t{1} << 40;
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d < 0) throw Error("tensor shape " + shape_str(shape) + " has a negative dimension");
    if (d != 0 && n > kMax / d) throw Error("tensor shape " + shape_str(shape) + " has more than 2^40 elements");
    n *= d;
  }
  return n;
}

std::string shape_str(const Shape& shape) {
  std::string s = "[";
  for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + "]";
}

double HostTensor::real(std::int64_t k) const {
  return type == ElemType::f32 ? static_cast<double>(f.at(k)) : static_cast<double>(i.at(k));
}

std::int64_t HostTensor::integer(std::int64_t k) const {
  return type == ElemType::f32 ? static_cast<std::int64_t>(f.at(k)) : i.at(k);
}

bool HostTensor::uniform() const {
  for (std::int64_t k = 1; k < size(); ++k)
    if (real(k) != real(0)) return false;
  return size() > 0;
}

HostTensor HostTensor::floats(Shape shape, std::vector<float> data) {
  HostTensor t;
  t.type = ElemType::f32;
  t.shape = std::move(shape);
  t.f = std::move(data);
  return t;
}

HostTensor HostTensor::integers(ElemType type, Shape shape, std::vector<std::int64_t> data) {
  HostTensor t;
  t.type = type;
  t.shape = std::move(shape);
  t.i = std::move(data);
  return t;
}

}  // namespace attune::graph
