// rules_shape.cpp — views (Reshape, Flatten, Squeeze, Unsqueeze) and the ops that only ever
// compute constants here (Shape, Constant, ConstantOfShape, Gather, Concat) (op_rules.hpp).
//
// A view is the same dense buffer under another shape, so it costs nothing at run time; on a
// constant it folds. Constant-class ops fold at import or are reported: attune runs no integer
// tensors.
#include <algorithm>

#include "graph/op_rules.hpp"
#include "ir/error.hpp"

namespace attune::graph {

namespace {

void set_out(Graph& g, int n, Shape s, ElemType t) {
  element_count(s);
  g.out_mut(n).shape = std::move(s);
  g.out_mut(n).type = t;
}

void infer_reshape(Graph& g, int n) {
  const Shape& in = g.in(n, 0).shape;
  const auto want = constant_ints(g, n, 1);
  const bool allowzero = g.attr_int(n, "allowzero", 0) != 0;
  Shape out;
  int infer_at = -1;
  std::int64_t known = 1;
  for (std::size_t k = 0; k < want.size(); ++k) {
    std::int64_t d = want[k];
    if (d == 0 && !allowzero) {
      if (k >= in.size()) node_error(g, n, "shape copies dimension " + std::to_string(k) + " the input does not have");
      d = in[k];
    }
    if (d == -1) {
      if (infer_at >= 0) node_error(g, n, "shape has more than one -1");
      infer_at = static_cast<int>(k);
      out.push_back(1);
      continue;
    }
    if (d < 0) node_error(g, n, "shape has a negative dimension " + std::to_string(d));
    out.push_back(d);
    known *= d;
  }
  const std::int64_t total = element_count(in);
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0) node_error(g, n, "cannot infer the -1 dimension of " + shape_str(out));
    out[infer_at] = total / known;
  }
  if (element_count(out) != total) node_error(g, n, "reshapes " + shape_str(in) + " to " + shape_str(out) + ": the element counts differ");
  set_out(g, n, out, g.in(n, 0).type);
}

void infer_flatten(Graph& g, int n) {
  const Shape& in = g.in(n, 0).shape;
  const std::int64_t axis = g.attr_int(n, "axis", 1) < 0 ? g.attr_int(n, "axis", 1) + static_cast<std::int64_t>(in.size()) : g.attr_int(n, "axis", 1);
  if (axis < 0 || axis > static_cast<std::int64_t>(in.size())) node_error(g, n, "axis is out of range");
  std::int64_t a = 1, b = 1;
  for (std::size_t k = 0; k < in.size(); ++k) (static_cast<std::int64_t>(k) < axis ? a : b) *= in[k];
  set_out(g, n, {a, b}, g.in(n, 0).type);
}

std::vector<std::int64_t> axes_of(const Graph& g, int n) {
  return g.has_input(n, 1) ? constant_ints(g, n, 1) : g.attr_ints(n, "axes", {});
}

void infer_squeeze(Graph& g, int n) {
  const Shape& in = g.in(n, 0).shape;
  std::vector<bool> drop(in.size(), false);
  const auto axes = axes_of(g, n);
  for (std::size_t k = 0; k < in.size(); ++k) drop[k] = axes.empty() && in[k] == 1;
  for (auto a : axes) {
    const auto k = normalize_axis(g, n, a, in.size());
    if (in[k] != 1) node_error(g, n, "squeezes axis " + std::to_string(a) + " of size " + std::to_string(in[k]));
    drop[k] = true;
  }
  Shape out;
  for (std::size_t k = 0; k < in.size(); ++k)
    if (!drop[k]) out.push_back(in[k]);
  set_out(g, n, out, g.in(n, 0).type);
}

void infer_unsqueeze(Graph& g, int n) {
  const Shape& in = g.in(n, 0).shape;
  const auto axes = axes_of(g, n);
  const std::size_t rank = in.size() + axes.size();
  std::vector<bool> inserted(rank, false);
  for (auto a : axes) {
    const auto k = normalize_axis(g, n, a, rank);
    if (inserted[k]) node_error(g, n, "axes repeat " + std::to_string(a));
    inserted[k] = true;
  }
  Shape out;
  for (std::size_t k = 0, j = 0; k < rank; ++k) out.push_back(inserted[k] ? 1 : in[j++]);
  set_out(g, n, out, g.in(n, 0).type);
}

// A view of a constant is the constant's data under the new shape.
std::optional<HostTensor> fold_view(const Graph& g, int n) {
  HostTensor t = *g.in(n, 0).constant;
  t.shape = g.out(n).shape;
  return t;
}

void infer_shape_op(Graph& g, int n) {
  const auto rank = static_cast<std::int64_t>(g.in(n, 0).shape.size());
  auto clampi = [&](std::int64_t v) { return std::clamp(v < 0 ? v + rank : v, std::int64_t{0}, rank); };
  const std::int64_t start = clampi(g.attr_int(n, "start", 0)), end = clampi(g.attr_int(n, "end", rank));
  set_out(g, n, {std::max<std::int64_t>(end - start, 0)}, ElemType::i64);
}

std::optional<HostTensor> fold_shape_op(const Graph& g, int n) {
  const Shape& s = g.in(n, 0).shape;
  const auto rank = static_cast<std::int64_t>(s.size());
  auto clampi = [&](std::int64_t v) { return std::clamp(v < 0 ? v + rank : v, std::int64_t{0}, rank); };
  const std::int64_t start = clampi(g.attr_int(n, "start", 0)), end = clampi(g.attr_int(n, "end", rank));
  std::vector<std::int64_t> d(s.begin() + start, s.begin() + std::max(start, end));
  return HostTensor::integers(ElemType::i64, g.out(n).shape, d);
}

HostTensor constant_value(const Graph& g, int n) {
  const auto& a = g.nodes[n].attrs;
  if (auto it = a.find("value"); it != a.end() && it->second.t) return *it->second.t;
  if (auto it = a.find("value_float"); it != a.end()) return HostTensor::floats({}, {static_cast<float>(it->second.f)});
  if (auto it = a.find("value_int"); it != a.end()) return HostTensor::integers(ElemType::i64, {}, {it->second.i});
  if (auto it = a.find("value_floats"); it != a.end()) {
    std::vector<float> f(it->second.floats.begin(), it->second.floats.end());
    return HostTensor::floats({static_cast<std::int64_t>(f.size())}, f);
  }
  if (auto it = a.find("value_ints"); it != a.end())
    return HostTensor::integers(ElemType::i64, {static_cast<std::int64_t>(it->second.ints.size())}, it->second.ints);
  node_error(g, n, "has no value attribute attune reads (value, value_float(s), value_int(s))");
}

void infer_constant(Graph& g, int n) {
  const HostTensor t = constant_value(g, n);
  set_out(g, n, t.shape, t.type);
}

void infer_constant_of_shape(Graph& g, int n) {
  const auto dims = constant_ints(g, n, 0);
  auto it = g.nodes[n].attrs.find("value");
  set_out(g, n, Shape(dims.begin(), dims.end()), it != g.nodes[n].attrs.end() && it->second.t ? it->second.t->type : ElemType::f32);
}

std::optional<HostTensor> fold_constant_of_shape(const Graph& g, int n) {
  const Value& o = g.out(n);
  auto it = g.nodes[n].attrs.find("value");
  const double v = it != g.nodes[n].attrs.end() && it->second.t && it->second.t->size() ? it->second.t->real(0) : 0.0;
  const auto count = element_count(o.shape);
  if (o.type == ElemType::f32) return HostTensor::floats(o.shape, std::vector<float>(count, static_cast<float>(v)));
  return HostTensor::integers(o.type, o.shape, std::vector<std::int64_t>(count, static_cast<std::int64_t>(v)));
}

void infer_gather(Graph& g, int n) {
  const Shape& data = g.in(n, 0).shape;
  const Shape& idx = g.in(n, 1).shape;
  const auto axis = normalize_axis(g, n, g.attr_int(n, "axis", 0), data.size());
  Shape out(data.begin(), data.begin() + axis);
  out.insert(out.end(), idx.begin(), idx.end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  set_out(g, n, out, g.in(n, 0).type);
}

std::optional<HostTensor> fold_gather(const Graph& g, int n) {
  const HostTensor& data = *g.in(n, 0).constant;
  const HostTensor& idx = *g.in(n, 1).constant;
  const auto axis = normalize_axis(g, n, g.attr_int(n, "axis", 0), data.shape.size());
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t k = 0; k < axis; ++k) outer *= data.shape[k];
  for (std::size_t k = axis + 1; k < data.shape.size(); ++k) inner *= data.shape[k];
  const std::int64_t len = data.shape[axis];
  HostTensor r;
  r.type = data.type;
  r.shape = g.out(n).shape;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < idx.size(); ++j) {
      std::int64_t at = idx.integer(j);
      if (at < 0) at += len;
      if (at < 0 || at >= len) node_error(g, n, "index " + std::to_string(idx.integer(j)) + " is out of range");
      for (std::int64_t i = 0; i < inner; ++i) {
        const std::int64_t src = (o * len + at) * inner + i;
        if (r.type == ElemType::f32) r.f.push_back(data.f[src]);
        else r.i.push_back(data.i[src]);
      }
    }
  return r;
}

void infer_concat(Graph& g, int n) {
  Shape out = g.in(n, 0).shape;
  const auto axis = normalize_axis(g, n, g.attr_int(n, "axis", 0), out.size());
  out[axis] = 0;
  for (std::size_t k = 0; k < g.nodes[n].inputs.size(); ++k) {
    const Shape& s = g.in(n, k).shape;
    if (s.size() != out.size()) node_error(g, n, "inputs have different ranks");
    for (std::size_t d = 0; d < s.size(); ++d)
      if (static_cast<std::int64_t>(d) != axis && s[d] != out[d]) node_error(g, n, "inputs differ outside the axis");
    out[axis] += s[axis];
  }
  set_out(g, n, out, g.in(n, 0).type);
}

std::optional<HostTensor> fold_concat(const Graph& g, int n) {
  const Shape& out = g.out(n).shape;
  const auto axis = normalize_axis(g, n, g.attr_int(n, "axis", 0), out.size());
  std::int64_t outer = 1;
  for (std::int64_t k = 0; k < axis; ++k) outer *= out[k];
  HostTensor r;
  r.type = g.out(n).type;
  r.shape = out;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::size_t k = 0; k < g.nodes[n].inputs.size(); ++k) {
      const HostTensor& t = *g.in(n, k).constant;
      const std::int64_t chunk = t.size() / std::max<std::int64_t>(outer, 1);
      for (std::int64_t i = 0; i < chunk; ++i) {
        if (r.type == ElemType::f32) r.f.push_back(static_cast<float>(t.real(o * chunk + i)));
        else r.i.push_back(t.integer(o * chunk + i));
      }
    }
  return r;
}

}  // namespace

const std::vector<NamedRule>& shape_rules() {
  static const std::vector<NamedRule> rules = {
      {"Reshape", {OpClass::view, infer_reshape, fold_view}},
      {"Flatten", {OpClass::view, infer_flatten, fold_view}},
      {"Squeeze", {OpClass::view, infer_squeeze, fold_view}},
      {"Unsqueeze", {OpClass::view, infer_unsqueeze, fold_view}},
      {"Shape", {OpClass::constant, infer_shape_op, fold_shape_op}},
      {"Constant", {OpClass::constant, infer_constant, [](const Graph& g, int n) { return std::optional(constant_value(g, n)); }}},
      {"ConstantOfShape", {OpClass::constant, infer_constant_of_shape, fold_constant_of_shape}},
      {"Gather", {OpClass::constant, infer_gather, fold_gather}},
      {"Concat", {OpClass::constant, infer_concat, fold_concat}},
  };
  return rules;
}

}  // namespace attune::graph
