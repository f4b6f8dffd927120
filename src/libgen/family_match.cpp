// family_match.cpp — recovers a task's template from its op (see family_match.hpp).
//
// Every parameter is guessed in one of four ways, then the whole guess is checked by
// re-instantiating the template and comparing canonical specs:
//   sizes            from tensor dimensions or variable extents (the family's ShapeSources);
//   stride/pad/...   from the first tensor's window index;
//   choices          each value tried in turn (gelu's form, residual_add's relu);
//   real numbers     by probing: the template is instantiated with marker values, and the
//                    task's constants at the markers' places in the expressions are read off.
#include "libgen/family_match.hpp"

#include "ir/error.hpp"

namespace attune::libgen {

namespace {

using ParamMap = std::map<std::string, std::string>;

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

// Every iteration variable of the op: a contraction's, then each stage's.
std::vector<const IterVar*> all_vars(const Op& op) {
  std::vector<const IterVar*> out;
  for (const auto& v : op.vars) out.push_back(&v);
  for (const auto& st : op.stages)
    for (const auto& v : st.vars) out.push_back(&v);
  return out;
}

const IterVar* find_var(const Op& op, const std::string& name) {
  for (const IterVar* v : all_vars(op))
    if (v->name == name) return v;
  return nullptr;
}

// The first read of tensor `name`: a contraction's input, or the first stage that reads it.
const Access* first_read(const Op& op, const std::string& name) {
  for (const auto& a : op.inputs)
    if (a.tensor == name) return &a;
  for (const auto& st : op.stages) {
    const Access* found = nullptr;
    for_each_read(st.value, [&](const Access& a) {
      if (!found && a.tensor == name) found = &a;
    });
    if (found) return found;
  }
  return nullptr;
}

// stride, pad and dilation from the first tensor's window index: `out*stride + tap*dilation -
// pad`, or `(out + pad - tap)/stride` for transposed convolutions.
void window_params(const Op& op, const Family& f, int dim, ParamMap& p) {
  const Access* read = op.tensors.empty() ? nullptr : first_read(op, op.tensors[0].name);
  if (!read || dim < 0 || dim >= static_cast<int>(read->index.size())) return;
  const AffineExpr& e = read->index[dim];
  if (f.transposed) {
    p["stride"] = std::to_string(e.divisor);
    p["pad"] = std::to_string(e.constant);
    return;
  }
  for (const auto& [var, coeff] : e.terms) {
    const IterVar* v = find_var(op, var);
    p[v && v->reduction ? "dilation" : "stride"] = std::to_string(coeff);
  }
  p["pad"] = std::to_string(-e.constant);
}

const TemplateInfo* template_info(const std::string& name) {
  for (const auto& t : list_templates())
    if (t.name == name) return &t;
  return nullptr;
}

// The guessed parameters of one family layout, or nullopt when the shapes do not even fit.
std::optional<ParamMap> guess(const Op& op, const Family& f, const LayoutVariant& v) {
  ParamMap p;
  for (const auto& s : v.shape) {
    if (!s.var.empty()) {
      const IterVar* var = find_var(op, s.var);
      if (!var) return std::nullopt;
      p[s.param] = std::to_string(var->extent);
      continue;
    }
    if (s.tensor >= static_cast<int>(op.tensors.size())) return std::nullopt;
    const auto& shape = op.tensors[s.tensor].shape;
    if (s.dim >= static_cast<int>(shape.size())) return std::nullopt;
    p[s.param] = std::to_string(shape[s.dim]);
  }
  if (!v.layout.empty()) p["layout"] = v.layout;
  window_params(op, f, v.window_dim, p);
  // Grouped conv2d declares `var g < groups`; ungrouped ones have no g.
  std::int64_t groups = 1;
  for (const auto& var : op.vars)
    if (var.name == "g") groups = var.extent;
  p["groups"] = std::to_string(groups);
  p["dtype"] = dtype_param(op.tensors.at(0).dtype);
  p["epilogue"] = epilogue_param(op.epilogue);
  // Keep only what the template accepts (gemm has no stride), then fill its defaults.
  const TemplateInfo* t = template_info(f.name);
  if (!t) return std::nullopt;
  ParamMap known;
  for (const auto& tp : t->params) {
    auto it = p.find(tp.name);
    if (it != p.end())
      known[tp.name] = it->second;
    else if (!tp.default_value.empty())
      known[tp.name] = tp.default_value;
  }
  return known;
}

// Every combination of the family's choice fields, applied to `base`.
std::vector<ParamMap> with_choices(const Family& f, const ParamMap& base) {
  std::vector<ParamMap> out = {base};
  for (const auto& field : f.fields) {
    if (field.kind != FieldKind::choice) continue;
    std::vector<ParamMap> next;
    for (const auto& p : out)
      for (const auto& c : field.choices) {
        next.push_back(p);
        next.back()[field.name] = c;
      }
    out = std::move(next);
  }
  return out;
}

// The constants of an op's statements, depth first in statement order.
void collect_constants(const Expr& e, std::vector<double>& out) {
  if (e.kind == Expr::Kind::constant) out.push_back(e.value);
  for (const auto& a : e.args) collect_constants(a, out);
}
std::vector<double> constants_of(const Op& op) {
  std::vector<double> out;
  for (const auto& st : op.stages) collect_constants(st.value, out);
  return out;
}

// Fills the real fields of `p` from the task's constants: the template is instantiated with
// marker values (increasing, so that lo <= hi holds), and each marker's first place among the
// probe's constants names the task constant that holds that parameter. False when the probe
// fails or the two ops do not have the same number of constants.
bool recover_reals(const Op& op, const Family& f, ParamMap& p) {
  std::vector<std::pair<std::string, double>> markers;
  ParamMap probe_params = p;
  for (const auto& field : f.fields) {
    if (field.kind != FieldKind::real) continue;
    const double marker = 1234.5678125 + 1.25 * static_cast<double>(markers.size());  // exact in binary
    markers.emplace_back(field.name, marker);
    probe_params[field.name] = number_text(marker);
  }
  if (markers.empty()) return true;
  std::vector<double> probe, task = constants_of(op);
  try {
    probe = constants_of(instantiate_template(f.name, probe_params));
  } catch (const Error&) {
    return false;
  }
  if (probe.size() != task.size()) return false;
  for (const auto& [name, marker] : markers)
    for (std::size_t i = 0; i < probe.size(); ++i)
      if (probe[i] == marker) {
        p[name] = number_text(task[i]);
        break;
      }
  return true;
}

// Whether the op's tensor count fits the family: every argument, the bias only if present.
bool tensor_count_fits(const Op& op, const Family& f) {
  const std::size_t n = op.tensors.size(), all = f.args.size();
  return n == all || (f.has_bias() && n == all - 1);
}

}  // namespace

bool FamilyMatch::is_f32() const {
  const auto it = params.find("dtype");
  return it == params.end() || it->second == "f32";  // the multi-stage templates are all f32
}
bool FamilyMatch::bias() const {
  const auto it = params.find("epilogue");
  return it != params.end() && (it->second == "bias" || it->second == "bias_relu");
}
bool FamilyMatch::relu() const {
  const auto it = params.find("epilogue");
  return it != params.end() && (it->second == "relu" || it->second == "bias_relu");
}

std::optional<FamilyMatch> match_family(const Op& op) {
  if (op.tensors.empty()) return std::nullopt;
  const std::string want = canonical_spec(op);
  for (const auto& f : families()) {
    if (!tensor_count_fits(op, f)) continue;
    for (const auto& v : f.variants) {
      auto base = guess(op, f, v);
      if (!base) continue;
      for (auto& params : with_choices(f, *base)) {
        if (!recover_reals(op, f, params)) continue;
        try {
          if (canonical_spec(instantiate_template(f.name, params)) == want) return FamilyMatch{&f, params};
        } catch (const Error&) {
          // The guess violates the template's own rules: not this family.
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace attune::libgen
