// ir/access.hpp — the vocabulary of ops: element types, affine index expressions, tensors,
// tensor accesses and iteration variables. op.hpp (contractions) and expr.hpp (the stages of
// multi-stage ops) are built from these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attune {

enum class DType : std::uint8_t { f32, f16, i8, u8, i32 };

std::string_view dtype_name(DType t);
// Throws attune::Error for an unknown name. Accepts f32/float32, f16/float16, i8/int8, u8/uint8,
// i32/int32.
DType parse_dtype(std::string_view name);
std::size_t dtype_size(DType t);
bool is_float(DType t);

// The largest |coefficient| (and |constant|) of an index expression: the spec parser refuses
// larger ones, and split refuses a split that would make one, so that index arithmetic over
// extents stays far from 64-bit overflow.
inline constexpr std::int64_t kMaxIndexCoefficient = std::int64_t{1} << 40;

// sum(coeff * var) + constant, optionally divided exactly by `divisor` (> 0).
// Terms keep no zero coefficients and no duplicate variables; their order is the order in which
// the variables were written (it only matters for printing).
struct AffineExpr {
  std::vector<std::pair<std::string, std::int64_t>> terms;
  std::int64_t constant = 0;
  std::int64_t divisor = 1;

  static AffineExpr var(std::string name, std::int64_t coeff = 1);
  static AffineExpr constant_of(std::int64_t c);

  std::int64_t coeff(std::string_view v) const;  // 0 when absent
  bool uses(std::string_view v) const { return coeff(v) != 0; }
  bool is_constant() const { return terms.empty(); }
  // The single variable of `1*v + 0` with divisor 1, if that is what this is.
  std::optional<std::string> as_single_var() const;

  AffineExpr& add_term(const std::string& v, std::int64_t c);  // merges, drops zeros
  AffineExpr operator+(const AffineExpr& o) const;             // both must have divisor 1
  AffineExpr operator*(std::int64_t k) const;                  // divisor must be 1
  // Replace variable v by expression e (e must have divisor 1).
  AffineExpr substitute(std::string_view v, const AffineExpr& e) const;

  // Evaluate with a value per variable. Returns nullopt when the division is not exact.
  template <class Lookup>
  std::optional<std::int64_t> eval(Lookup&& value_of) const {
    std::int64_t s = constant;
    for (const auto& [v, c] : terms) s += c * value_of(v);
    if (divisor == 1) return s;
    if (s % divisor != 0) return std::nullopt;
    return s / divisor;
  }

  std::string str() const;                     // "p*2 + r - 1", "(h + 1 - r)/2"
  bool operator==(const AffineExpr& o) const;  // order-insensitive on terms
};

struct Tensor {
  std::string name;
  std::vector<std::int64_t> shape;
  DType dtype = DType::f32;
  // `const` in the spec: the values stay the same from call to call (a model's weights), so a
  // real caller reads them from memory each time, not from the cache its last call left; the
  // worker evicts them before each timed call (runtime/worker.cpp). Only inputs may be const.
  bool constant = false;
  std::int64_t numel() const;
  bool operator==(const Tensor&) const = default;
};

struct Access {
  std::string tensor;
  std::vector<AffineExpr> index;
  std::string str() const;  // "I[n, p*2 + r - 1, c]"
  bool operator==(const Access&) const = default;
};

struct IterVar {
  std::string name;
  std::int64_t extent = 0;
  bool reduction = false;
  bool operator==(const IterVar&) const = default;
};

}  // namespace attune
