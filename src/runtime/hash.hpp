// runtime/hash.hpp — FNV-1a 64, the content hash behind the build cache's file names.
//
// Not cryptographic: a cache key only has to keep different (compiler, flags, source) triples
// apart, and the cache re-checks the stored source on every hit (builder.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace attune::runtime {

class Fnv1a64 {
 public:
  Fnv1a64& add(std::string_view bytes) {
    for (unsigned char c : bytes) {
      h_ ^= c;
      h_ *= 0x100000001b3ull;
    }
    return *this;
  }
  // Adds a field and a separator, so ("ab","c") and ("a","bc") hash differently.
  Fnv1a64& field(std::string_view bytes) {
    add(std::to_string(bytes.size()));
    add(":");
    return add(bytes);
  }
  std::uint64_t value() const { return h_; }
  std::string hex() const {  // 16 lowercase hex digits
    static const char digits[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15, shift = 0; i >= 0; --i, shift += 4) out[i] = digits[(h_ >> shift) & 15];
    return out;
  }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace attune::runtime
