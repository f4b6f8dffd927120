// ir/buffer.hpp — typed host tensors used by the evaluator, the runner and the tests.
//
// Storage is 64-byte aligned raw bytes in the tensor's dtype, so a Buffer's data() can be
// handed to a generated kernel as is. get()/set() convert through double for generic code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/op.hpp"

namespace attune {

float half_to_float(std::uint16_t h);
std::uint16_t float_to_half(float f);  // round to nearest even

class Buffer {
 public:
  Buffer() = default;
  Buffer(DType dtype, std::vector<std::int64_t> shape);  // zero-filled
  Buffer(const Buffer& o);
  Buffer& operator=(const Buffer& o);
  Buffer(Buffer&&) noexcept = default;
  Buffer& operator=(Buffer&&) noexcept = default;

  DType dtype() const { return dtype_; }
  const std::vector<std::int64_t>& shape() const { return shape_; }
  std::int64_t numel() const { return numel_; }
  std::size_t bytes() const { return static_cast<std::size_t>(numel_) * dtype_size(dtype_); }
  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }
  template <class T>
  T* as() {
    return static_cast<T*>(data());
  }
  template <class T>
  const T* as() const {
    return static_cast<const T*>(data());
  }

  double get(std::int64_t flat) const;
  void set(std::int64_t flat, double v);  // rounds/saturates to the dtype
  void fill_zero();
  // Uniform random values: floats in [-1, 1]; i8 in [-8, 7]; u8 in [0, 15]; i32 in [-64, 63].
  // Small integer ranges keep int32 accumulations exact and far from overflow.
  void fill_random(std::uint64_t seed);

 private:
  struct Free {
    void operator()(void* p) const;
  };
  DType dtype_ = DType::f32;
  std::vector<std::int64_t> shape_;
  std::int64_t numel_ = 0;
  std::unique_ptr<void, Free> data_;
};

// One Buffer per tensor of `op`, in op.tensors order; inputs filled by fill_random(seed + i),
// the output zeroed.
std::vector<Buffer> make_buffers(const Op& op, std::uint64_t seed);

struct Comparison {
  bool ok = false;
  double max_abs_error = 0;
  double max_rel_error = 0;     // max |got - want| / max(max |want|, tiny): error relative to the output's scale
  std::int64_t first_bad = -1;  // flat index of the worst element when !ok
  std::string str() const;
};
// Floats pass when max_rel_error <= rtol; integers must be equal.
Comparison compare(const Buffer& got, const Buffer& want, double rtol = 1e-4);

}  // namespace attune
