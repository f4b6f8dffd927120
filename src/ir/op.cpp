// op.cpp — queries on Tensor, Access and Op (look-ups, variable classes, MAC counts).
#include <algorithm>
#include <string>

#include "ir/error.hpp"
#include "ir/op.hpp"

namespace attune {

std::int64_t Tensor::numel() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string Access::str() const {
  std::string s = tensor + "[";
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (i) s += ", ";
    s += index[i].str();
  }
  return s + "]";
}

const Tensor& Op::tensor(std::string_view n) const {
  for (const auto& t : tensors)
    if (t.name == n) return t;
  throw Error("op '" + name + "' has no tensor '" + std::string(n) + "'");
}

int Op::tensor_index(std::string_view n) const {
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == n) return static_cast<int>(i);
  return -1;
}

const IterVar& Op::var(std::string_view n) const {
  for (const auto& v : vars)
    if (v.name == n) return v;
  throw Error("op '" + name + "' has no variable '" + std::string(n) + "'");
}

bool Op::is_reduction(std::string_view v) const {
  for (const auto& iv : vars)
    if (iv.name == v) return iv.reduction;
  return false;
}

std::vector<std::string> Op::spatial_vars() const {
  std::vector<std::string> r;
  for (const auto& v : vars)
    if (!v.reduction) r.push_back(v.name);
  return r;
}

std::vector<std::string> Op::reduction_vars() const {
  std::vector<std::string> r;
  for (const auto& v : vars)
    if (v.reduction) r.push_back(v.name);
  return r;
}

const Tensor* Op::find_tensor(std::string_view n) const {
  for (const auto* list : {&tensors, &locals})
    for (const auto& t : *list)
      if (t.name == n) return &t;
  return nullptr;
}

std::vector<std::string> Op::input_tensors() const {
  std::vector<std::string> r;
  for (const auto& t : tensors) {
    bool read = std::any_of(inputs.begin(), inputs.end(), [&](const Access& a) { return a.tensor == t.name; });
    for (const auto& st : stages) for_each_read(st.value, [&](const Access& a) { read = read || a.tensor == t.name; });
    if (epilogue.bias && epilogue.bias->tensor == t.name) read = true;
    if (epilogue.value && t.name != output.tensor)
      for_each_read(*epilogue.value, [&](const Access& a) { read = read || a.tensor == t.name; });
    if (read) r.push_back(t.name);
  }
  return r;
}

std::int64_t Op::macs() const {
  if (multi_stage()) {
    std::int64_t n = 0;
    for (const auto& st : stages) n += st.domain_points();
    return n;
  }
  std::int64_t n = 1;
  for (const auto& v : vars) n *= v.extent;
  return n;
}

}  // namespace attune
