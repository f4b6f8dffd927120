// partition.cpp — fused groups of nodes (plan.hpp).
//
// One pass in graph order. A node joins the group whose latest value it consumes when that
// value has no other consumer and is no graph output (so every value inside a group except
// its head is private to it, and a group is finished once anything else reads its head).
// Groups therefore run in the order of their last nodes.
#include <algorithm>

#include "graph/op_rules.hpp"
#include "graph/plan.hpp"

namespace attune::graph {

namespace {

bool joinable(const Graph& g, int value, int node) {
  const Value& v = g.values[value];
  return v.consumers.size() == 1 && v.consumers[0] == node && !g.is_output(value);
}

}  // namespace

std::vector<Group> partition(const Graph& g) {
  std::vector<Group> groups;
  std::vector<int> group_of_head(g.values.size(), -1);  // value -> group whose head it is
  for (int n = 0; n < static_cast<int>(g.nodes.size()); ++n) {
    const Node& node = g.nodes[n];
    if (node.removed) continue;
    const OpClass cls = find_rule(node.op)->cls;
    if (cls == OpClass::view) continue;
    int host = -1;
    if (cls == OpClass::elementwise || cls == OpClass::reduction) {
      for (int v : node.inputs) {
        if (v < 0 || g.values[v].constant || group_of_head[v] < 0 || !joinable(g, v, n)) continue;
        const Group& cand = groups[group_of_head[v]];
        if (cls == OpClass::reduction && cand.has_contraction) continue;
        host = group_of_head[v];
        break;
      }
    }
    if (host < 0) {
      groups.push_back({});
      host = static_cast<int>(groups.size()) - 1;
    }
    Group& gr = groups[host];
    if (gr.head >= 0) group_of_head[gr.head] = -1;
    gr.nodes.push_back(n);
    gr.head = node.outputs[0];
    gr.has_contraction = gr.has_contraction || cls == OpClass::contraction;
    group_of_head[gr.head] = host;
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) { return a.nodes.back() < b.nodes.back(); });
  return groups;
}

}  // namespace attune::graph
