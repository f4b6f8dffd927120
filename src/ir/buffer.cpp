// buffer.cpp — Buffer (aligned typed host storage), deterministic random fill, make_buffers()
// and compare().
#include "ir/buffer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "ir/aligned.hpp"
#include "ir/error.hpp"

namespace attune {

namespace {

// splitmix64: tiny, fast and good enough for test inputs.
struct SplitMix64 {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

template <class T>
T saturate(double v) {
  if (std::isnan(v)) return 0;
  double r = std::nearbyint(v);
  if (r <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (r >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

std::string shape_str(DType t, const std::vector<std::int64_t>& shape) {
  std::string s(dtype_name(t));
  s += "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

void Buffer::Free::operator()(void* p) const { std::free(p); }

Buffer::Buffer(DType dtype, std::vector<std::int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {
  numel_ = 1;
  for (auto d : shape_) {
    if (d < 0) throw Error("Buffer: negative dimension in " + shape_str(dtype_, shape_));
    numel_ *= d;
  }
  data_.reset(aligned_bytes(bytes()));
  std::memset(data_.get(), 0, bytes());
}

Buffer::Buffer(const Buffer& o) : dtype_(o.dtype_), shape_(o.shape_), numel_(o.numel_) {
  if (!o.data_) return;
  data_.reset(aligned_bytes(bytes()));
  std::memcpy(data_.get(), o.data_.get(), bytes());
}

Buffer& Buffer::operator=(const Buffer& o) {
  if (this != &o) *this = Buffer(o);
  return *this;
}

double Buffer::get(std::int64_t i) const {
  switch (dtype_) {
    case DType::f32: return as<float>()[i];
    case DType::f16: return half_to_float(as<std::uint16_t>()[i]);
    case DType::i8: return as<std::int8_t>()[i];
    case DType::u8: return as<std::uint8_t>()[i];
    case DType::i32: return as<std::int32_t>()[i];
  }
  return 0;
}

void Buffer::set(std::int64_t i, double v) {
  switch (dtype_) {
    case DType::f32: as<float>()[i] = static_cast<float>(v); return;
    case DType::f16: as<std::uint16_t>()[i] = float_to_half(static_cast<float>(v)); return;
    case DType::i8: as<std::int8_t>()[i] = saturate<std::int8_t>(v); return;
    case DType::u8: as<std::uint8_t>()[i] = saturate<std::uint8_t>(v); return;
    case DType::i32: as<std::int32_t>()[i] = saturate<std::int32_t>(v); return;
  }
}

void Buffer::fill_zero() {
  if (data_) std::memset(data_.get(), 0, bytes());
}

void Buffer::fill_random(std::uint64_t seed) {
  SplitMix64 rng{seed};
  for (std::int64_t i = 0; i < numel_; ++i) {
    std::uint64_t x = rng.next();
    switch (dtype_) {
      case DType::f32:
      case DType::f16: {
        double u = static_cast<double>(x >> 11) * 0x1.0p-53;  // [0, 1)
        set(i, 2.0 * u - 1.0);
        break;
      }
      case DType::i8: as<std::int8_t>()[i] = static_cast<std::int8_t>(static_cast<int>(x % 16) - 8); break;
      case DType::u8: as<std::uint8_t>()[i] = static_cast<std::uint8_t>(x % 16); break;
      case DType::i32: as<std::int32_t>()[i] = static_cast<std::int32_t>(x % 128) - 64; break;
    }
  }
}

std::vector<Buffer> make_buffers(const Op& op, std::uint64_t seed) {
  std::vector<Buffer> bufs;
  bufs.reserve(op.tensors.size());
  for (std::size_t i = 0; i < op.tensors.size(); ++i) {
    const Tensor& t = op.tensors[i];
    bufs.emplace_back(t.dtype, t.shape);
    if (t.name != op.output.tensor) bufs.back().fill_random(seed + i);
  }
  return bufs;
}

std::string Comparison::str() const {
  char buf[160];
  if (ok)
    std::snprintf(buf, sizeof buf, "ok (max abs error %.3g, max rel error %.3g)", max_abs_error, max_rel_error);
  else
    std::snprintf(buf, sizeof buf, "mismatch (max abs error %.3g, max rel error %.3g, worst at flat index %lld)",
                  max_abs_error, max_rel_error, static_cast<long long>(first_bad));
  return buf;
}

Comparison compare(const Buffer& got, const Buffer& want, double rtol) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape())
    throw Error("compare: got " + shape_str(got.dtype(), got.shape()) + " but want " +
                shape_str(want.dtype(), want.shape()));
  Comparison c;
  double scale = 0;
  std::int64_t worst = -1;
  for (std::int64_t i = 0; i < want.numel(); ++i) {
    double w = want.get(i), g = got.get(i);
    if (std::isfinite(w)) scale = std::max(scale, std::fabs(w));
    double d;
    if (std::isnan(g) || std::isnan(w))
      d = std::isnan(g) && std::isnan(w) ? 0 : std::numeric_limits<double>::infinity();
    else
      d = g == w ? 0 : std::fabs(g - w);
    if (d > c.max_abs_error) {
      c.max_abs_error = d;
      worst = i;
    }
  }
  c.max_rel_error = c.max_abs_error / std::max(scale, 1e-30);
  c.ok = is_float(want.dtype()) ? c.max_rel_error <= rtol : c.max_abs_error == 0;
  if (!c.ok) c.first_bad = worst;
  return c;
}

}  // namespace attune
