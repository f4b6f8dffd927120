// template_params.hpp — what the template builders share (templates.cpp: contractions;
// templates_stages.cpp: multi-stage ops): a template's definition and its validated parameters.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "ir/op.hpp"

namespace attune::ir {

// Validated parameter values of one instantiation: unknown names and missing required values
// are refused on construction; each getter refuses a malformed value, naming the parameter.
class Params {
 public:
  Params(const TemplateInfo& info, const std::map<std::string, std::string>& given);

  [[noreturn]] void fail(const std::string& param, const std::string& what) const;
  [[noreturn]] void fail(const std::string& what) const;

  const std::string& str(const std::string& p) const { return values_.at(p); }
  std::int64_t num(const std::string& p, std::int64_t min = 1) const;  // an integer in [min, 2^31)
  double real(const std::string& p) const;                             // a finite number ("1e-5")
  std::string choice(const std::string& p, std::vector<std::string> allowed) const;

 private:
  const TemplateParam* find(const std::string& n) const;
  const TemplateInfo& info_;
  std::map<std::string, std::string> values_;
};

// A template: its description and the builder of its spec text.
struct TemplateDef {
  TemplateInfo info;
  std::function<std::string(const Params&)> build;
};
const std::vector<TemplateDef>& stage_templates();  // templates_stages.cpp

// a's parameters, then b's.
std::vector<TemplateParam> plus(std::vector<TemplateParam> a, const std::vector<TemplateParam>& b);

// N, H, W, C, K, R, S, stride, pad: the shape of a 2-D convolution (conv2d and the fused
// conv2d_bias_add_relu share it).
std::vector<TemplateParam> conv2d_shape_params();

// A real number as spec text that reads back as the same double ("(-0.5)", "inf").
std::string spec_number(double v);

// "a, b, c"
std::string lst(std::initializer_list<std::string> xs);

}  // namespace attune::ir
