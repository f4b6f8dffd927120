// graph.cpp — Graph bookkeeping and attribute access (graph.hpp).
#include "graph/graph.hpp"

#include "ir/error.hpp"

namespace attune::graph {

void node_error(const Graph& g, int node, const std::string& what) { throw Error(g.describe(node) + ": " + what); }

Shape physical_shape(const Value& v) {
  if (v.layout.empty()) return v.shape;
  Shape s;
  for (int d : v.layout) s.push_back(v.shape[d]);
  return s;
}

int Graph::add_value(Value v) {
  values.push_back(std::move(v));
  return static_cast<int>(values.size()) - 1;
}

std::string Graph::describe(int node) const {
  const Node& n = nodes.at(node);
  const std::string who = n.name.empty() ? "#" + std::to_string(node) : "'" + n.name.substr(0, 200) + "'";
  return "node " + who + " (" + n.op.substr(0, 100) + ")";
}

void Graph::link() {
  for (auto& v : values) {
    v.producer = -1;
    v.consumers.clear();
  }
  for (int k = 0; k < static_cast<int>(nodes.size()); ++k) {
    if (nodes[k].removed) continue;
    for (int o : nodes[k].outputs) values[o].producer = k;
    for (int i : nodes[k].inputs)
      if (i >= 0) values[i].consumers.push_back(k);
  }
}

bool Graph::is_output(int value) const {
  for (int o : outputs)
    if (o == value) return true;
  return false;
}

namespace {

const Attribute* find(const Graph& g, int node, const std::string& name, Attribute::Kind kind, const char* what) {
  const auto& a = g.nodes.at(node).attrs;
  auto it = a.find(name);
  if (it == a.end()) return nullptr;
  if (it->second.kind != kind) node_error(g, node, "attribute '" + name + "' must be " + what);
  return &it->second;
}

}  // namespace

std::int64_t Graph::attr_int(int node, const std::string& name, std::int64_t fallback) const {
  const Attribute* a = find(*this, node, name, Attribute::Kind::integer, "an integer");
  return a ? a->i : fallback;
}

double Graph::attr_real(int node, const std::string& name, double fallback) const {
  const Attribute* a = find(*this, node, name, Attribute::Kind::real, "a float");
  return a ? a->f : fallback;
}

std::string Graph::attr_text(int node, const std::string& name, const std::string& fallback) const {
  const Attribute* a = find(*this, node, name, Attribute::Kind::text, "a string");
  return a ? a->s : fallback;
}

std::vector<std::int64_t> Graph::attr_ints(int node, const std::string& name,
                                           std::vector<std::int64_t> fallback) const {
  const Attribute* a = find(*this, node, name, Attribute::Kind::integers, "a list of integers");
  return a ? a->ints : fallback;
}

bool Graph::has_attr(int node, const std::string& name) const { return nodes.at(node).attrs.count(name) > 0; }

bool Graph::has_input(int node, std::size_t k) const {
  const auto& in = nodes.at(node).inputs;
  return k < in.size() && in[k] >= 0;
}

const Value& Graph::in(int node, std::size_t k) const {
  if (!has_input(node, k)) node_error(*this, node, "input " + std::to_string(k) + " is missing");
  return values[nodes[node].inputs[k]];
}

const Value& Graph::out(int node, std::size_t k) const {
  const auto& o = nodes.at(node).outputs;
  if (k >= o.size()) node_error(*this, node, "output " + std::to_string(k) + " is missing");
  return values[o[k]];
}

Value& Graph::out_mut(int node, std::size_t k) {
  const auto& o = nodes.at(node).outputs;
  if (k >= o.size()) node_error(*this, node, "output " + std::to_string(k) + " is missing");
  return values[o[k]];
}

}  // namespace attune::graph
