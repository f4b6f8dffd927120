// family_match.cpp — recovers a task's template from its op (see family_match.hpp).
#include "libgen/family_match.hpp"

#include "ir/error.hpp"

namespace attune::libgen {

namespace {

std::string dtype_param(DType input) {
  switch (input) {
    case DType::f32: return "f32";
    case DType::i8: return "int8";
    case DType::f16: return "f16";
    default: return "";  // no template produces it
  }
}

std::string epilogue_param(const Epilogue& e) {
  if (e.bias && e.relu) return "bias_relu";
  if (e.bias) return "bias";
  if (e.relu) return "relu";
  return "none";
}

// stride, pad and dilation from the first input's window index: `out*stride + tap*dilation -
// pad`, or `(out + pad - tap)/stride` for transposed convolutions.
void window_params(const Op& op, const Family& f, int dim, std::map<std::string, std::string>& p) {
  const auto& index = op.inputs.at(0).index;
  if (dim < 0 || dim >= static_cast<int>(index.size())) return;
  const AffineExpr& e = index[dim];
  if (f.transposed) {
    p["stride"] = std::to_string(e.divisor);
    p["pad"] = std::to_string(e.constant);
    return;
  }
  for (const auto& [var, coeff] : e.terms) p[op.is_reduction(var) ? "dilation" : "stride"] = std::to_string(coeff);
  p["pad"] = std::to_string(-e.constant);
}

// The guessed parameters of one family layout, or nullopt when the shapes do not even fit.
std::optional<std::map<std::string, std::string>> guess(const Op& op, const Family& f, const LayoutVariant& v) {
  std::map<std::string, std::string> p;
  for (const auto& s : v.shape) {
    if (s.tensor >= static_cast<int>(op.tensors.size())) return std::nullopt;
    const auto& shape = op.tensors[s.tensor].shape;
    if (s.dim >= static_cast<int>(shape.size())) return std::nullopt;
    p[s.param] = std::to_string(shape[s.dim]);
  }
  if (!v.layout.empty()) p["layout"] = v.layout;
  window_params(op, f, v.window_dim, p);
  // Grouped conv2d declares `var g < groups`; ungrouped ones have no g.
  p["groups"] = "1";
  for (const auto& var : op.vars)
    if (var.name == "g") p["groups"] = std::to_string(var.extent);
  p["dtype"] = dtype_param(op.tensors.at(0).dtype);
  p["epilogue"] = epilogue_param(op.epilogue);
  // Keep only what the template accepts (gemm has no stride), then fill its defaults.
  for (const auto& t : list_templates()) {
    if (t.name != f.name) continue;
    std::map<std::string, std::string> known;
    for (const auto& tp : t.params) {
      auto it = p.find(tp.name);
      if (it != p.end())
        known[tp.name] = it->second;
      else if (!tp.default_value.empty())
        known[tp.name] = tp.default_value;
    }
    return known;
  }
  return std::nullopt;
}

}  // namespace

bool FamilyMatch::bias() const {
  const auto& e = params.at("epilogue");
  return e == "bias" || e == "bias_relu";
}
bool FamilyMatch::relu() const {
  const auto& e = params.at("epilogue");
  return e == "relu" || e == "bias_relu";
}

std::optional<FamilyMatch> match_family(const Op& op) {
  if (op.inputs.size() != 2) return std::nullopt;  // every template multiplies two inputs
  const std::string want = canonical_spec(op);
  for (const auto& f : families()) {
    for (const auto& v : f.variants) {
      auto params = guess(op, f, v);
      if (!params) continue;
      try {
        if (canonical_spec(instantiate_template(f.name, *params)) == want) return FamilyMatch{&f, *params};
      } catch (const Error&) {
        // The guess violates the template's own rules: not this family.
      }
    }
  }
  return std::nullopt;
}

}  // namespace attune::libgen
