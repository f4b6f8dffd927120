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
  if (axis < -r || axis >= std::max<std::int64_t>(r, 1))
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
