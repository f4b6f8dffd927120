// graph/task_writer.hpp — writes the spec text of one task (a fused group of nodes).
//
// Lowering a node produces an Operand: how to read any element of its value inside the task.
// Elementwise nodes (and Transpose, a pure index remap) compose their operands' readers into
// one expression, so a chain of them becomes one statement; reductions and contractions write
// statements into intermediate tensors and hand back a reader of those. Every tensor and loop
// variable name in the text is made here (x0.. inputs, t0.. intermediates, y the output,
// v/r<stmt>_<k> variables), never taken from the model, so that no model text reaches
// generated code; numbers go through spec_number.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace attune::graph {

using Index = std::vector<std::string>;  // one affine index expression (spec text) per dimension
using ElemFn = std::function<std::string(const Index&)>;

// A contraction's result on its way to becoming `relu(acc + bias)`: while a task's result is
// no more than that, finish() writes it as one contraction with epilogue lines (which the
// contraction schedule space and its micro-kernels tune) instead of a multi-stage op.
struct Epilogue {
  std::string acc;   // the intermediate the contraction statement writes
  Index out_vars;    // that statement's output variables
  std::string bias;  // "x2[v0_1]" once a bias was added
  bool relu = false;
};

struct Operand {
  ElemFn at;            // the element at an index, as a spec value expression
  Shape shape;
  std::string stored;   // the tensor it reads whole and unchanged, when it is a plain read
  bool boolean = false; // a comparison (usable as select's condition only)
  std::optional<Epilogue> epi;
};

class TaskWriter {
 public:
  explicit TaskWriter(Graph& g) : g_(g) {}

  // A task input bound to graph value `value` (declared once per value).
  Operand input(int value);
  // A task input holding `data`, added to the graph as a new constant value (host-computed
  // tables: pooling counts, folded scales).
  Operand constant(HostTensor data, const std::string& what);
  // A number written inline.
  static Operand number(double v, Shape shape = {});
  // Stores `o` into a new intermediate unless it already is a stored tensor; returns a plain read.
  Operand materialize(const Operand& o);
  // Declares an intermediate of `shape`, stored in `layout` (graph.hpp; empty: row-major);
  // returns its name.
  std::string local(const Shape& shape, const std::vector<int>& layout = {});
  // Fresh variables for the next statement: `kind` 'v' (indexing its output) or 'r' (reduced).
  Index vars(std::size_t n, char kind);
  // Declares a variable whose extent cannot be inferred from a tensor dimension it indexes alone.
  void extent(const std::string& var, std::int64_t n);
  // Appends `OUT[vars] <op> value` (op "=", "+=", "max=", "mean="...) and counts the statement;
  // `vars` index OUT's logical dimensions, written in the order of its `layout`.
  void statement(const std::string& out, const Index& vars, const std::string& op, const std::string& value,
                 const std::vector<int>& layout = {});
  // A plain reader of a stored tensor of logical `shape` kept in `layout`.
  static Operand read(const std::string& tensor, const Shape& shape, const std::vector<int>& layout = {});

  // The spec text with `result` as the output `y`, and the graph values bound to the task's
  // tensors in declaration order (inputs, then the output's value `out_value`).
  std::string finish(const Operand& result, int out_value);
  const std::vector<int>& bound() const { return bound_; }

 private:
  Graph& g_;
  std::vector<int> bound_;  // graph value of each declared input, then the output
  std::vector<std::string> input_names_;
  std::string inputs_, locals_, vars_, body_;
  std::string last_local_;  // the intermediate the last statement wrote
  std::vector<int> last_layout_;
  int statements_ = 0, locals_count_ = 0;
};

// The index of a tensor kept in `layout`, in memory order.
Index physical(const Index& logical, const std::vector<int>& layout);

// numpy broadcasting: the reader of `o` at an index of `out` (a dimension of size 1 reads 0).
Operand broadcast_to(const Operand& o, const Shape& out);

}  // namespace attune::graph
