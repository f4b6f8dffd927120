// graph/graph.hpp — a network as attune holds it after import (the graph stage).
//
// Values are the edges (a graph input, a weight, a node's output), nodes the ONNX operators
// between them. Every value has a static shape once imported (dynamic dimensions are fixed on
// the command line), and constants (initializers, Constant nodes, whatever folding computed)
// carry their data. Names are ONNX's and are only ever shown to people: nothing here reaches
// generated code (tasks.cpp names the tensors of each task itself).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/host_tensor.hpp"

namespace attune::graph {

struct Attribute {
  enum class Kind { integer, real, text, integers, reals, tensor };
  Kind kind = Kind::integer;
  std::int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<std::int64_t> ints;
  std::vector<double> floats;
  std::optional<HostTensor> t;
};

struct Value {
  std::string name;
  ElemType type = ElemType::f32;
  Shape shape;
  std::optional<HostTensor> constant;  // known at import (weights, folded shapes)
  int producer = -1;                   // node index; -1 for inputs and constants
  std::vector<int> consumers;          // node indices (graph outputs are not nodes)
  // How its buffer orders the dimensions (layout.hpp): physical dimension k is logical
  // dimension layout[k]. Empty: as the shape says (row-major, what ONNX means).
  std::vector<int> layout;
};

// The dimensions of a value's buffer, in memory order.
Shape physical_shape(const Value& v);

struct Node {
  std::string op;    // ONNX op_type
  std::string name;  // ONNX node name, possibly empty
  std::vector<int> inputs;   // value indices; -1 for an omitted optional input
  std::vector<int> outputs;  // value indices
  std::map<std::string, Attribute> attrs;
  bool removed = false;  // dropped by a pass (folded, fused away)
};

class Graph {
 public:
  std::vector<Value> values;
  std::vector<Node> nodes;    // topologically ordered
  std::vector<int> inputs;    // runtime inputs (not constants)
  std::vector<int> outputs;
  std::int64_t opset = 0;
  std::string producer;       // producer_name + version, for the report

  int add_value(Value v);
  // "node 'conv1' (Conv)" or "node #12 (Conv)": how errors name a node.
  std::string describe(int node) const;
  // Rebuilds producer/consumer links from the live nodes.
  void link();
  bool is_output(int value) const;

  // Attribute access with ONNX's defaults; Error naming the node for a wrong kind.
  std::int64_t attr_int(int node, const std::string& name, std::int64_t fallback) const;
  double attr_real(int node, const std::string& name, double fallback) const;
  std::string attr_text(int node, const std::string& name, const std::string& fallback) const;
  std::vector<std::int64_t> attr_ints(int node, const std::string& name, std::vector<std::int64_t> fallback) const;
  bool has_attr(int node, const std::string& name) const;

  // The node's k-th input value (Error naming the node when it is missing and required).
  const Value& in(int node, std::size_t k) const;
  bool has_input(int node, std::size_t k) const;
  const Value& out(int node, std::size_t k = 0) const;
  Value& out_mut(int node, std::size_t k = 0);
};

[[noreturn]] void node_error(const Graph& g, int node, const std::string& what);

}  // namespace attune::graph
