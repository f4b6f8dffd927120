// plan.cpp — groups to tasks and steps (plan.hpp).
#include <map>

#include "graph/op_rules.hpp"
#include "graph/plan.hpp"
#include "graph/task_writer.hpp"
#include "ir/error.hpp"
#include "ir/fold_epilogue.hpp"
#include "ir/op.hpp"

namespace attune::graph {

namespace {

// "Conv.Relu": the op types a group fuses (a label: letters, digits and '.').
std::string label_of(const Graph& g, const Group& gr) {
  std::string s;
  for (int n : gr.nodes) {
    std::string op;
    for (char c : g.nodes[n].op)
      if (std::isalnum(static_cast<unsigned char>(c))) op += c;
    if (s.size() + op.size() + 1 > 100) break;
    s += (s.empty() ? "" : ".") + op;
  }
  return s;
}

Operand operand_of(TaskWriter& w, const Graph& g, int value, const std::map<int, Operand>& inside) {
  if (auto it = inside.find(value); it != inside.end()) return it->second;
  const Value& v = g.values[value];
  if (v.constant && v.constant->size() == 1) return TaskWriter::number(v.constant->real(0), v.shape);
  return w.input(value);
}

// The spec text of one group, and the graph values its tensors are bound to.
std::string lower_group(Graph& g, const Group& gr, std::vector<int>& bound) {
  TaskWriter w(g);
  std::map<int, Operand> inside;
  for (int n : gr.nodes) {
    std::vector<Operand> in;
    for (int v : g.nodes[n].inputs) in.push_back(v < 0 ? Operand{} : operand_of(w, g, v, inside));
    for (std::size_t k = 1; k < g.nodes[n].outputs.size(); ++k)
      if (!g.values[g.nodes[n].outputs[k]].consumers.empty() || g.is_output(g.nodes[n].outputs[k]))
        node_error(g, n, "output " + std::to_string(k) + " is used, which attune does not support");
    inside[g.nodes[n].outputs[0]] = find_rule(g.nodes[n].op)->lower(w, g, n, in);
  }
  std::string spec = w.finish(inside.at(gr.head), gr.head);
  bound = w.bound();
  return spec;
}

// A contraction tunes well only as a contraction (its schedule space, its micro-kernels): a
// group keeps the longest prefix that is still one contraction, alone or followed by pointwise
// math on its result (a bias, a residual add, relu, clip, GELU: ir/fold_epilogue.hpp folds it
// into the contraction's epilogue), and the rest (a transpose of the result, a reduction over
// it) becomes a group of its own that reads the prefix's stored result.
std::vector<Group> split_at_epilogue(Graph& g, std::vector<Group> groups) {
  std::vector<Group> out;
  for (std::size_t k = 0; k < groups.size(); ++k) {
    Group gr = groups[k];
    if (gr.has_contraction && gr.nodes.size() > 1) {
      for (std::size_t len = gr.nodes.size(); len >= 1; --len) {
        Group prefix{{gr.nodes.begin(), gr.nodes.begin() + static_cast<long>(len)}, g.nodes[gr.nodes[len - 1]].outputs[0], true};
        std::vector<int> bound;
        if (len > 1) {
          const Op op = parse_spec(lower_group(g, prefix, bound));
          if (op.multi_stage() && !fold_epilogue(op)) continue;
        }
        if (len < gr.nodes.size()) {
          Group rest{{gr.nodes.begin() + static_cast<long>(len), gr.nodes.end()}, gr.head, false};
          groups.insert(groups.begin() + static_cast<long>(k) + 1, rest);
        }
        gr = prefix;
        break;
      }
    }
    out.push_back(gr);
  }
  return out;
}

}  // namespace

ModelPlan plan_model(Graph g) {
  ModelPlan plan;
  plan.storage.resize(g.values.size());
  for (std::size_t v = 0; v < g.values.size(); ++v) plan.storage[v] = static_cast<int>(v);
  for (const Node& n : g.nodes)
    if (!n.removed && find_rule(n.op)->cls == OpClass::view) plan.storage[n.outputs[0]] = plan.storage[n.inputs[0]];
  std::map<std::string, int> task_of;  // canonical spec -> task
  for (const Group& gr : split_at_epilogue(g, partition(g))) {
    Step step;
    std::string spec;
    try {
      spec = lower_group(g, gr, step.args);
      const Op op = parse_spec(spec);
      const std::string key = canonical_spec(op);
      auto [it, fresh] = task_of.emplace(key, static_cast<int>(plan.tasks.size()));
      if (fresh) plan.tasks.push_back({"op " + label_of(g, gr) + "\n" + spec, label_of(g, gr), 0, g.describe(gr.nodes[0])});
      step.task = it->second;
    } catch (const Error& e) {
      throw Error(g.describe(gr.nodes.back()) + ": cannot be planned as an attune task: " + e.what());
    }
    plan.tasks[step.task].weight++;
    step.nodes = gr.nodes;
    plan.steps.push_back(std::move(step));
  }
  // Values the lowering added (pool counts) are constants that share nothing.
  for (std::size_t v = plan.storage.size(); v < g.values.size(); ++v) plan.storage.push_back(static_cast<int>(v));
  plan.graph = std::move(g);
  return plan;
}

}  // namespace attune::graph
