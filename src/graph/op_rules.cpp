// op_rules.cpp — the merged rule table and helpers shared by the rule files (op_rules.hpp).
#include "graph/op_rules.hpp"

#include <algorithm>
#include <map>

#include "ir/error.hpp"

namespace attune::graph {

namespace {

const std::map<std::string, OpRule>& table() {
  static const std::map<std::string, OpRule> t = [] {
    std::map<std::string, OpRule> m;
    for (const auto* family : {&elementwise_rules(), &contraction_rules(), &reduction_rules(), &shape_rules()})
      for (const auto& r : *family) m.emplace(r.op, r.rule);
    return m;
  }();
  return t;
}

}  // namespace

const OpRule* find_rule(const std::string& op_type) {
  auto it = table().find(op_type);
  return it == table().end() ? nullptr : &it->second;
}

namespace {

struct Arity {
  std::size_t min_inputs, max_inputs;
};

// ONNX's input counts of the supported operators (optional inputs included in the maximum).
const std::map<std::string, Arity>& arities() {
  static const std::map<std::string, Arity> a = [] {
    std::map<std::string, Arity> m;
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
                           "MatMul", "Reshape", "Gather"})
      m[op] = {2, 2};
    for (const char* op : {"Sqrt", "Erf", "Tanh", "Exp", "Log", "Abs", "Neg", "Sigmoid", "Relu", "Cast", "Identity",
                           "Transpose", "Softmax", "LogSoftmax", "MaxPool", "AveragePool", "GlobalAveragePool",
                           "GlobalMaxPool", "Flatten", "Shape", "ConstantOfShape"})
      m[op] = {1, 1};
    for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "Squeeze", "Unsqueeze"}) m[op] = {1, 2};
    for (const char* op : {"Conv", "ConvTranspose", "Gemm", "LayerNormalization"}) m[op] = {2, 3};
    m["Clip"] = {1, 3};
    m["Dropout"] = {1, 3};
    m["Where"] = {3, 3};
    m["BatchNormalization"] = {5, 5};
    m["Constant"] = {0, 0};
    m["Concat"] = {1, 1u << 16};
    return m;
  }();
  return a;
}

}  // namespace

void check_arity(const Graph& g, int node) {
  const Node& n = g.nodes[node];
  const auto it = arities().find(n.op);
  ATTUNE_CHECK(it != arities().end(), "operator " + n.op + " has a rule but no arity");
  const Arity a = it->second;
  if (n.inputs.size() < a.min_inputs || n.inputs.size() > a.max_inputs)
    node_error(g, node, "has " + std::to_string(n.inputs.size()) + " inputs; " + n.op + " takes " +
                            std::to_string(a.min_inputs) +
                            (a.max_inputs == a.min_inputs ? "" : " to " + std::to_string(a.max_inputs)));
  for (std::size_t k = 0; k < a.min_inputs; ++k)
    if (n.inputs[k] < 0) node_error(g, node, "required input " + std::to_string(k) + " is empty");
  if (n.outputs.empty() || n.outputs[0] < 0) node_error(g, node, "has no output");
}

std::string supported_op_types() {
  std::string s;
  for (const auto& [name, rule] : table()) s += (s.empty() ? "" : ", ") + name;
  return s;
}

Shape broadcast_shapes(const Graph& g, int node) {
  Shape out;
  for (int v : g.nodes[node].inputs) {
    if (v < 0) continue;
    const Shape& s = g.values[v].shape;
    if (s.size() > out.size()) out.insert(out.begin(), s.size() - out.size(), 1);
    const std::size_t lead = out.size() - s.size();
    for (std::size_t k = 0; k < s.size(); ++k) {
      std::int64_t& o = out[lead + k];
      if (s[k] == o || s[k] == 1) continue;
      if (o != 1)
        node_error(g, node, "input shapes do not broadcast (" + shape_str(g.values[g.nodes[node].inputs[0]].shape) +
                                " and " + shape_str(s) + ")");
      o = s[k];
    }
  }
  return out;
}

std::int64_t normalize_axis(const Graph& g, int node, std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    node_error(g, node, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + r : axis;
}

std::vector<std::int64_t> constant_ints(const Graph& g, int node, std::size_t input) {
  const Value& v = g.in(node, input);
  if (!v.constant)
    node_error(g, node, "input " + std::to_string(input) + " ('" + v.name.substr(0, 100) +
                            "') must be a constant (it is computed at run time, which attune does not support here)");
  std::vector<std::int64_t> r;
  for (std::int64_t k = 0; k < v.constant->size(); ++k) r.push_back(v.constant->integer(k));
  return r;
}

}  // namespace attune::graph
