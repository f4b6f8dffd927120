// affine_expr.cpp — AffineExpr: the index expressions of accesses (sum of coeff*var + const,
// optionally divided exactly by a constant). Construction, algebra, printing and equality.
#include <algorithm>
#include <string>

#include "ir/error.hpp"
#include "ir/op.hpp"

namespace attune {

AffineExpr AffineExpr::var(std::string name, std::int64_t coeff) {
  AffineExpr e;
  e.add_term(name, coeff);
  return e;
}

AffineExpr AffineExpr::constant_of(std::int64_t c) {
  AffineExpr e;
  e.constant = c;
  return e;
}

std::int64_t AffineExpr::coeff(std::string_view v) const {
  for (const auto& [name, c] : terms)
    if (name == v) return c;
  return 0;
}

std::optional<std::string> AffineExpr::as_single_var() const {
  if (terms.size() == 1 && terms[0].second == 1 && constant == 0 && divisor == 1) return terms[0].first;
  return std::nullopt;
}

AffineExpr& AffineExpr::add_term(const std::string& v, std::int64_t c) {
  for (auto it = terms.begin(); it != terms.end(); ++it) {
    if (it->first != v) continue;
    it->second += c;
    if (it->second == 0) terms.erase(it);
    return *this;
  }
  if (c != 0) terms.emplace_back(v, c);
  return *this;
}

AffineExpr AffineExpr::operator+(const AffineExpr& o) const {
  ATTUNE_CHECK(divisor == 1 && o.divisor == 1, "AffineExpr::operator+ on a divided expression");
  AffineExpr r = *this;
  for (const auto& [v, c] : o.terms) r.add_term(v, c);
  r.constant += o.constant;
  return r;
}

AffineExpr AffineExpr::operator*(std::int64_t k) const {
  ATTUNE_CHECK(divisor == 1, "AffineExpr::operator* on a divided expression");
  AffineExpr r;
  if (k == 0) return r;
  for (const auto& [v, c] : terms) r.terms.emplace_back(v, c * k);
  r.constant = constant * k;
  return r;
}

AffineExpr AffineExpr::substitute(std::string_view v, const AffineExpr& e) const {
  ATTUNE_CHECK(e.divisor == 1, "AffineExpr::substitute with a divided replacement");
  AffineExpr r;
  r.divisor = divisor;
  r.constant = constant;
  for (const auto& [name, c] : terms) {
    if (name != v) {
      r.add_term(name, c);
      continue;
    }
    for (const auto& [n2, c2] : e.terms) r.add_term(n2, c * c2);
    r.constant += c * e.constant;
  }
  return r;
}

std::string AffineExpr::str() const {
  std::string s;
  for (const auto& [v, c] : terms) {
    std::int64_t mag = c < 0 ? -c : c;
    if (s.empty())
      s += c < 0 ? "-" : "";
    else
      s += c < 0 ? " - " : " + ";
    s += v;
    if (mag != 1) s += "*" + std::to_string(mag);
  }
  if (s.empty())
    s = std::to_string(constant);
  else if (constant > 0)
    s += " + " + std::to_string(constant);
  else if (constant < 0)
    s += " - " + std::to_string(-constant);
  if (divisor != 1) s = "(" + s + ")/" + std::to_string(divisor);
  return s;
}

bool AffineExpr::operator==(const AffineExpr& o) const {
  if (constant != o.constant || divisor != o.divisor || terms.size() != o.terms.size()) return false;
  auto a = terms, b = o.terms;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

}  // namespace attune
