// graph/op_rules.hpp — what attune knows about each ONNX operator, in one table.
//
// For every supported op_type: its class (how partition.cpp groups it), how its output shape
// follows from its inputs and attributes (ONNX's rules, defaults included), how to fold it when
// all its inputs are constants, and how to lower it into a task (task_writer.hpp). An op_type
// without a rule is reported by name at import. The rules live in rules_*.cpp by family.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "graph/task_writer.hpp"

namespace attune::graph {

enum class OpClass {
  elementwise,  // one output element from the same element of each input (broadcast), or a
                // pure index remap (Transpose): composed into one expression
  contraction,  // Conv, ConvTranspose, MatMul, Gemm: a sum of products, starts a task
  reduction,    // Softmax, LayerNormalization, pooling, ReduceMean: starts a task
  view,         // Reshape, Flatten, Squeeze, Unsqueeze, Identity: the same buffer, another shape
  constant,     // Shape, Constant, Gather, Concat...: folded at import, never run
};

struct OpRule {
  OpClass cls;
  void (*infer)(Graph& g, int node);  // sets the type and shape of the node's outputs
  // The output when every input is a constant; nullopt when the rule does not fold.
  std::optional<HostTensor> (*fold)(const Graph& g, int node) = nullptr;
  // Reads of the output inside a task, given readers of the inputs (-1 inputs: empty Operand).
  Operand (*lower)(TaskWriter& w, const Graph& g, int node, const std::vector<Operand>& in) = nullptr;
};

// nullptr for an op_type attune does not support.
const OpRule* find_rule(const std::string& op_type);
// Error naming the node unless it has as many inputs (required ones present) and outputs as
// ONNX allows its op_type: every rule may then read the inputs it needs.
void check_arity(const Graph& g, int node);
std::string supported_op_types();  // "Abs, Add, ..." for the error message

// Shared by the rule files.
Shape broadcast_shapes(const Graph& g, int node);  // numpy broadcasting of all inputs
std::int64_t normalize_axis(const Graph& g, int node, std::int64_t axis, std::size_t rank);
// A constant input's integers (shape, axes...), Error naming the node when it is not constant.
std::vector<std::int64_t> constant_ints(const Graph& g, int node, std::size_t input);

// The rule tables of each family (rules_*.cpp), merged by find_rule.
struct NamedRule {
  const char* op;
  OpRule rule;
};
const std::vector<NamedRule>& elementwise_rules();
const std::vector<NamedRule>& contraction_rules();
const std::vector<NamedRule>& reduction_rules();
const std::vector<NamedRule>& shape_rules();

}  // namespace attune::graph
