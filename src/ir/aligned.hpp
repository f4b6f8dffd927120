// ir/aligned.hpp — the one alignment every buffer handed to a generated kernel has (64 bytes: a
// cache line and an AVX-512 vector), and a std::vector allocator that gives it. The tuner times
// kernels on aligned Buffers (ir/buffer.hpp); a kernel run on storage that is not aligned the same
// way splits every vector access across two cache lines and runs measurably slower than timed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

namespace attune {

inline constexpr std::size_t kBufferAlign = 64;

// `bytes` rounded up to a whole number of kBufferAlign blocks.
constexpr std::int64_t aligned_size(std::int64_t bytes) {
  constexpr auto a = static_cast<std::int64_t>(kBufferAlign);
  return (bytes + a - 1) / a * a;
}

// At least one kBufferAlign block, aligned; released with std::free.
inline void* aligned_bytes(std::size_t bytes) {
  void* p = std::aligned_alloc(kBufferAlign, static_cast<std::size_t>(aligned_size(std::max<std::int64_t>(bytes, 1))));
  if (!p) throw std::bad_alloc();
  return p;
}

template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(aligned_bytes(n * sizeof(T))); }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  template <class U>
  bool operator==(const AlignedAllocator<U>&) const noexcept { return true; }
};

// Floats whose data() is kBufferAlign-aligned.
using AlignedFloats = std::vector<float, AlignedAllocator<float>>;

}  // namespace attune
