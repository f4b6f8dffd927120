// ir/aligned.hpp — the one alignment every buffer handed to a generated kernel has (64 bytes: a
// cache line and an AVX-512 vector), and a std::vector allocator that gives it. The tuner times
// kernels on aligned Buffers (ir/buffer.hpp); a kernel run on storage that is not aligned the same
// way splits every vector access across two cache lines and runs measurably slower than timed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace attune {

inline constexpr std::size_t kBufferAlign = 64;

template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    const std::size_t bytes = (std::max<std::size_t>(n * sizeof(T), 1) + kBufferAlign - 1) / kBufferAlign * kBufferAlign;
    void* p = std::aligned_alloc(kBufferAlign, bytes);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  template <class U>
  bool operator==(const AlignedAllocator<U>&) const noexcept { return true; }
};

// Floats whose data() is kBufferAlign-aligned.
using AlignedFloats = std::vector<float, AlignedAllocator<float>>;

}  // namespace attune
