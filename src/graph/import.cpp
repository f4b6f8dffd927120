// import.cpp — import_onnx and the plan's description (import.hpp).
#include "graph/import.hpp"

#include <map>

#include "graph/layout.hpp"
#include "graph/prepare.hpp"

namespace attune::graph {

namespace {

ModelPlan plan_graph(Graph g) {
  prepare(g);
  choose_layouts(g);
  return plan_model(std::move(g));
}

}  // namespace

ModelPlan import_onnx(const std::string& path, const ShapeOverrides& shapes) {
  return plan_graph(read_onnx(path, shapes));
}

ModelPlan import_onnx_bytes(const std::string& bytes, const std::string& what, const ShapeOverrides& shapes) {
  return plan_graph(read_onnx_bytes(bytes, what, shapes));
}

std::string describe_plan(const ModelPlan& plan, bool with_specs) {
  const Graph& g = plan.graph;
  std::string s = "model: opset " + std::to_string(g.opset) + ", produced by " + g.producer + "\n";
  for (int v : g.inputs) s += "  input  " + g.values[v].name.substr(0, 100) + " " + shape_str(g.values[v].shape) + " " + std::string(elem_type_name(g.values[v].type)) + "\n";
  for (int v : g.outputs) s += "  output " + g.values[v].name.substr(0, 100) + " " + shape_str(g.values[v].shape) + "\n";
  std::map<std::string, int> ops;
  int live = 0;
  for (const auto& n : g.nodes)
    if (!n.removed) ++ops[n.op], ++live;
  s += "nodes: " + std::to_string(live) + " after folding (";
  bool first = true;
  for (const auto& [op, c] : ops) s += (first ? "" : ", ") + op + " " + std::to_string(c), first = false;
  s += ")\n";
  s += "tasks: " + std::to_string(plan.tasks.size()) + " distinct, " + std::to_string(plan.steps.size()) + " steps\n";
  for (std::size_t t = 0; t < plan.tasks.size(); ++t) {
    const Task& task = plan.tasks[t];
    s += "  task " + std::to_string(t) + "  x" + std::to_string(task.weight) + "  " + task.label + "  (from " + task.where + ")\n";
    if (with_specs) {
      std::string body = task.spec;
      for (std::size_t p = 0; (p = body.find('\n', p)) != std::string::npos && p + 1 < body.size(); p += 5) body.replace(p, 1, "\n    ");
      s += "    " + body;
    }
  }
  return s;
}

}  // namespace attune::graph
