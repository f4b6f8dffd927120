#include "codegen/tensorize/index_c.hpp"

#include <cctype>

namespace attune::tgen {

std::string cvar(const std::string& v) {
  std::string s = "v_";
  for (char c : v) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

std::string c_affine(const AffineExpr& e) {
  std::string s;
  for (const auto& [v, k] : e.terms) {
    std::string t = (k == 1 ? "" : k == -1 ? "-" : std::to_string(k) + "*") + cvar(v);
    s += s.empty() ? t : (t[0] == '-' ? " - " + t.substr(1) : " + " + t);
  }
  if (s.empty()) return "(" + std::to_string(e.constant) + ")";
  if (e.constant > 0) s += " + " + std::to_string(e.constant);
  if (e.constant < 0) s += " - " + std::to_string(-e.constant);
  return "(" + s + ")";
}

namespace {

// [lo, hi] of the expression's numerator over the op's domain.
std::pair<std::int64_t, std::int64_t> range(const Op& op, const AffineExpr& e) {
  std::int64_t lo = e.constant, hi = e.constant;
  for (const auto& [v, k] : e.terms) {
    const std::int64_t top = k * (op.var(v).extent - 1);
    (top < 0 ? lo : hi) += top;
  }
  return {lo, hi};
}

std::string index_of(const AffineExpr& e) {
  return e.divisor == 1 ? c_affine(e) : "(" + c_affine(e) + " / " + std::to_string(e.divisor) + ")";
}

}  // namespace

std::string read_guard(const Op& op, const Access& a) {
  const Tensor& t = op.tensor(a.tensor);
  std::string cond;
  auto add = [&](const std::string& c) { cond += (cond.empty() ? "" : " && ") + c; };
  for (std::size_t d = 0; d < a.index.size(); ++d) {
    const AffineExpr& e = a.index[d];
    auto [lo, hi] = range(op, e);
    if (e.divisor != 1) {
      // C's % keeps the dividend's sign, so a negative inexact quotient is caught too.
      add(c_affine(e) + " % " + std::to_string(e.divisor) + " == 0");
      lo = lo < 0 ? -1 : lo / e.divisor;
      hi = hi / e.divisor;
    }
    if (lo < 0) add(index_of(e) + " >= 0");
    if (hi >= t.shape[d]) add(index_of(e) + " < " + std::to_string(t.shape[d]));
  }
  return cond;
}

std::string flat_offset(const Op& op, const Access& a) {
  const Tensor& t = op.tensor(a.tensor);
  std::string s;
  std::int64_t stride = 1;
  for (std::size_t d = a.index.size(); d-- > 0;) {
    std::string term = stride == 1 ? index_of(a.index[d]) : std::to_string(stride) + "*" + index_of(a.index[d]);
    s = s.empty() ? term : term + " + " + s;
    stride *= t.shape[d];
  }
  return s.empty() ? "0" : "(" + s + ")";
}

std::vector<std::string> decompose(const Op& op, const std::vector<std::string>& loops, const std::string& fused,
                                   const std::string& it) {
  std::vector<std::string> out;
  std::int64_t inner = extent_product(op, loops);
  for (std::size_t i = 0; i < loops.size(); ++i) {
    const std::int64_t e = op.var(loops[i]).extent;
    inner /= e;
    std::string v = fused;
    if (inner != 1) v = "(" + v + " / " + std::to_string(inner) + ")";
    if (i > 0 && e != 1) v = "(" + v + " % " + std::to_string(e) + ")";
    if (e == 1) v = "0";
    out.push_back("const " + it + " " + cvar(loops[i]) + " = " + v + ";");
  }
  return out;
}

std::string apply_epilogue(const Op& op, const std::string& value, const std::string& bias_cast) {
  std::string v = value;
  if (op.epilogue.bias) {
    const Access& b = *op.epilogue.bias;
    const std::string g = read_guard(op, b);
    const std::string read = bias_cast + "(" + b.tensor + "[" + flat_offset(op, b) + "])";
    v = "(" + v + " + " + (g.empty() ? read : "((" + g + ") ? " + read + " : 0)") + ")";
  }
  if (op.epilogue.relu) v = "(" + v + " > 0 ? " + v + " : 0)";
  return v;
}

std::int64_t extent_product(const Op& op, const std::vector<std::string>& loops) {
  std::int64_t p = 1;
  for (const auto& v : loops) p *= op.var(v).extent;
  return p;
}

}  // namespace attune::tgen
