// layout.cpp — NHWC activations and R S C K weights around 2-D convolutions (layout.hpp).
#include "graph/layout.hpp"

#include "graph/op_rules.hpp"

namespace attune::graph {

namespace {

bool is_conv2d(const Graph& g, const Node& n) { return n.op == "Conv" && g.values[n.inputs[0]].shape.size() == 4; }

}  // namespace

void choose_layouts(Graph& g) {
  bool convs = false;
  for (const auto& n : g.nodes) convs = convs || (!n.removed && is_conv2d(g, n));
  if (!convs) return;
  for (std::size_t v = 0; v < g.values.size(); ++v) {
    Value& val = g.values[v];
    if (val.shape.size() != 4 || val.type != ElemType::f32 || g.is_output(static_cast<int>(v))) continue;
    bool view_reads = false, only_conv_weight = !val.consumers.empty();
    for (int c : val.consumers) {
      const Node& n = g.nodes[c];
      view_reads = view_reads || find_rule(n.op)->cls == OpClass::view;
      only_conv_weight = only_conv_weight && is_conv2d(g, n) && n.inputs.size() > 1 && n.inputs[1] == static_cast<int>(v) &&
                         n.inputs[0] != static_cast<int>(v);
    }
    if (val.constant) {
      if (only_conv_weight) val.layout = {2, 3, 1, 0};  // K C R S -> R S C K
    } else if (val.producer >= 0 && !view_reads && find_rule(g.nodes[val.producer].op)->cls != OpClass::view) {
      val.layout = {0, 2, 3, 1};  // N C H W -> N H W C
    }
  }
}

std::vector<float> physical_floats(const HostTensor& t, const std::vector<int>& layout) {
  const std::int64_t n = t.size();
  std::vector<float> out(n);
  if (layout.empty()) {
    for (std::int64_t k = 0; k < n; ++k) out[k] = static_cast<float>(t.real(k));
    return out;
  }
  const std::size_t rank = t.shape.size();
  std::vector<std::int64_t> stride(rank, 1);  // logical strides
  for (std::size_t d = rank - 1; d-- > 0;) stride[d] = stride[d + 1] * t.shape[d + 1];
  for (std::int64_t p = 0; p < n; ++p) {
    std::int64_t rest = p, logical = 0;
    for (std::size_t k = rank; k-- > 0;) {
      const std::int64_t extent = t.shape[layout[k]];
      logical += (rest % extent) * stride[layout[k]];
      rest /= extent;
    }
    out[p] = static_cast<float>(t.real(logical));
  }
  return out;
}

}  // namespace attune::graph
