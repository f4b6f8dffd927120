// prepare.cpp — shape inference, constant folding, batch-norm folding, dead nodes (prepare.hpp).
#include "graph/prepare.hpp"

#include <cmath>

#include "graph/op_rules.hpp"
#include "ir/error.hpp"

namespace attune::graph {

namespace {

bool all_inputs_constant(const Graph& g, int n) {
  for (int v : g.nodes[n].inputs)
    if (v >= 0 && !g.values[v].constant) return false;
  return true;
}

void infer_and_fold(Graph& g) {
  for (int n = 0; n < static_cast<int>(g.nodes.size()); ++n) {
    Node& node = g.nodes[n];
    const OpRule* rule = find_rule(node.op);
    if (!rule)
      node_error(g, n, "operator '" + node.op.substr(0, 100) + "' is not supported (attune supports " + supported_op_types() + ")");
    check_arity(g, n);
    rule->infer(g, n);
    const bool foldable = node.op == "Shape" || all_inputs_constant(g, n);
    if (foldable && rule->fold) {
      if (auto c = rule->fold(g, n)) {
        g.out_mut(n).constant = std::move(*c);
        node.removed = true;
        continue;
      }
    }
    if (rule->cls == OpClass::constant)
      node_error(g, n, "computes its output at run time from non-constant inputs, which attune does not support");
  }
}

// y = (conv(x, W) + B - mean) * s / sqrt(var + eps) + beta  ==  conv(x, W * a) + (B - mean) * a + beta,
// a = s / sqrt(var + eps), per output channel.
bool fold_batchnorm(Graph& g, int bn) {
  const int x = g.nodes[bn].inputs[0];
  const int conv = g.values[x].producer;
  if (conv < 0 || g.nodes[conv].op != "Conv" || g.values[x].consumers.size() != 1 || g.is_output(x)) return false;
  for (std::size_t k = 1; k <= 4; ++k)
    if (!g.in(bn, k).constant) return false;
  if (!g.in(conv, 1).constant || (g.has_input(conv, 2) && !g.in(conv, 2).constant)) return false;
  const double eps = g.attr_real(bn, "epsilon", 1e-5);
  const HostTensor &s = *g.in(bn, 1).constant, &beta = *g.in(bn, 2).constant, &mean = *g.in(bn, 3).constant,
                   &var = *g.in(bn, 4).constant;
  HostTensor w = *g.in(conv, 1).constant;
  const std::int64_t K = w.shape[0], per = w.size() / K;
  std::vector<float> bias(K);
  for (std::int64_t k = 0; k < K; ++k) {
    const double a = s.real(k) / std::sqrt(var.real(k) + eps);
    for (std::int64_t i = 0; i < per; ++i) w.f[k * per + i] = static_cast<float>(w.f[k * per + i] * a);
    const double b0 = g.has_input(conv, 2) ? g.in(conv, 2).constant->real(k) : 0.0;
    bias[k] = static_cast<float>((b0 - mean.real(k)) * a + beta.real(k));
  }
  auto constant = [&](HostTensor t, const std::string& name) {
    Value v;
    v.name = name;
    v.type = ElemType::f32;
    v.shape = t.shape;
    v.constant = std::move(t);
    return g.add_value(std::move(v));
  };
  const std::string base = g.values[g.nodes[bn].outputs[0]].name;
  const int wv = constant(std::move(w), base + " (folded weight)");
  const int bv = constant(HostTensor::floats({K}, std::move(bias)), base + " (folded bias)");
  Node& c = g.nodes[conv];
  c.inputs.resize(3);
  c.inputs[1] = wv;
  c.inputs[2] = bv;
  c.outputs[0] = g.nodes[bn].outputs[0];
  g.values[c.outputs[0]].shape = g.values[x].shape;
  g.nodes[bn].removed = true;
  return true;
}

void drop_dead_nodes(Graph& g) {
  std::vector<bool> needed(g.values.size(), false);
  for (int o : g.outputs) needed[o] = true;
  for (int n = static_cast<int>(g.nodes.size()); n-- > 0;) {
    Node& node = g.nodes[n];
    if (node.removed) continue;
    bool used = false;
    for (int o : node.outputs) used = used || needed[o];
    if (!used) {
      node.removed = true;
      continue;
    }
    for (int v : node.inputs)
      if (v >= 0) needed[v] = true;
  }
}

}  // namespace

void prepare(Graph& g) {
  infer_and_fold(g);
  g.link();
  for (int n = 0; n < static_cast<int>(g.nodes.size()); ++n)
    if (!g.nodes[n].removed && g.nodes[n].op == "BatchNormalization" && fold_batchnorm(g, n)) g.link();
  drop_dead_nodes(g);
  g.link();
  for (int n = 0; n < static_cast<int>(g.nodes.size()); ++n) {
    if (g.nodes[n].removed) continue;
    for (int v : g.nodes[n].inputs)
      // A comparison's result is fused into the select that reads it (or refused at planning).
      if (v >= 0 && !g.values[v].constant && g.values[v].type != ElemType::f32 &&
          !(g.values[v].type == ElemType::boolean && g.values[v].producer >= 0))
        node_error(g, n, "reads '" + g.values[v].name.substr(0, 100) + "', an " + std::string(elem_type_name(g.values[v].type)) +
                             " tensor computed at run time; attune runs float32 tensors only");
  }
}

}  // namespace attune::graph
