// template_params.cpp — validation of template parameter values (template_params.hpp).
#include "template_params.hpp"

#include <charconv>
#include <cstdio>
#include <cmath>
#include <cstdlib>

#include "ir/error.hpp"

namespace attune::ir {

Params::Params(const TemplateInfo& info, const std::map<std::string, std::string>& given) : info_(info) {
  for (const auto& [k, v] : given) {
    if (!find(k)) {
      std::string known;
      for (const auto& p : info.params) known += (known.empty() ? "" : ", ") + p.name;
      fail(k, "is unknown (parameters: " + known + ")");
    }
  }
  for (const auto& p : info.params) {
    auto it = given.find(p.name);
    if (it != given.end())
      values_[p.name] = it->second;
    else if (!p.default_value.empty())
      values_[p.name] = p.default_value;
    else
      fail(p.name, "is required");
  }
}

void Params::fail(const std::string& param, const std::string& what) const {
  throw Error(info_.name + ": parameter '" + param + "' " + what);
}

void Params::fail(const std::string& what) const { throw Error(info_.name + ": " + what); }

std::int64_t Params::num(const std::string& p, std::int64_t min) const {
  const std::string& s = str(p);
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) fail(p, "must be an integer, got '" + s + "'");
  if (v < min) fail(p, "must be >= " + std::to_string(min) + ", got " + s);
  if (v > (std::int64_t{1} << 31) - 1) fail(p, "is too large, got " + s);
  return v;
}

double Params::real(const std::string& p) const {
  const std::string& s = str(p);
  char* end = nullptr;
  const double v = s.empty() || s.size() > 40 ? NAN : std::strtod(s.c_str(), &end);
  if (std::isnan(v) || !std::isfinite(v) || end != s.c_str() + s.size())
    fail(p, "must be a finite number, got '" + s.substr(0, 40) + "'");
  return v;
}

std::string Params::choice(const std::string& p, std::vector<std::string> allowed) const {
  const std::string& s = str(p);
  std::string list;
  for (const auto& a : allowed) {
    if (a == s) return s;
    list += (list.empty() ? "" : "|") + a;
  }
  fail(p, "must be one of " + list + ", got '" + s + "'");
}

const TemplateParam* Params::find(const std::string& n) const {
  for (const auto& p : info_.params)
    if (p.name == n) return &p;
  return nullptr;
}

std::vector<TemplateParam> plus(std::vector<TemplateParam> a, const std::vector<TemplateParam>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string spec_number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return v < 0 ? "(" + std::string(buf) + ")" : buf;
}

std::vector<TemplateParam> conv2d_shape_params() {
  return {{"N", "", "batch"},          {"H", "", "input height"},    {"W", "", "input width"},
          {"C", "", "input channels"}, {"K", "", "output channels"}, {"R", "", "kernel height"},
          {"S", "", "kernel width"},   {"stride", "1", ""},          {"pad", "0", ""}};
}

std::string lst(std::initializer_list<std::string> xs) {
  std::string s;
  for (const auto& x : xs) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace attune::ir
