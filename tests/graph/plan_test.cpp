// Partition and task extraction: a contraction keeps its bias and relu as an epilogue (one
// contraction op, not a multi-stage one), a residual add and relu after it fuse into its task
// (a multi-stage op that folds into one contraction), identical computations are one task with a weight, views run nothing, and activations around 2-D
// convolutions are NHWC while graph inputs and outputs stay NCHW.
#include <gtest/gtest.h>
#include <unistd.h>

#include "graph/import.hpp"
#include "ir/fold_epilogue.hpp"
#include "ir/op.hpp"
#include "onnx_test_util.hpp"

namespace attune::graph {
namespace {

void add_weight(onnx::GraphProto* g, const std::string& name, std::vector<long> dims) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  long n = 1;
  for (long d : dims) t->add_dims(d), n *= d;
  for (long k = 0; k < n; ++k) t->add_float_data(0.01f * static_cast<float>(k % 7) - 0.02f);
}

void add_node(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in, const std::string& out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  for (const auto& i : in) n->add_input(i);
  n->add_output(out);
}

// Three identical residual blocks: y = relu(conv(relu(conv(x) + b)) + b + x), then Flatten.
std::string residual_model() {
  onnx::ModelProto m = test::relu_model({1, 4, 6, 6});
  auto* g = m.mutable_graph();
  g->clear_node();
  g->clear_output();
  std::string x = "x";
  for (int blk = 0; blk < 3; ++blk) {
    const std::string p = "b" + std::to_string(blk) + "_";
    add_weight(g, p + "w1", {4, 4, 3, 3});
    add_weight(g, p + "b1", {4});
    add_weight(g, p + "w2", {4, 4, 3, 3});
    add_weight(g, p + "b2", {4});
    add_node(g, "Conv", {x, p + "w1", p + "b1"}, p + "c1");
    g->mutable_node(g->node_size() - 1)->add_attribute()->CopyFrom([] {
      onnx::AttributeProto a;
      a.set_name("pads");
      a.set_type(onnx::AttributeProto::INTS);
      for (int k = 0; k < 4; ++k) a.add_ints(1);
      return a;
    }());
    add_node(g, "Relu", {p + "c1"}, p + "r1");
    add_node(g, "Conv", {p + "r1", p + "w2", p + "b2"}, p + "c2");
    g->mutable_node(g->node_size() - 1)->add_attribute()->CopyFrom(g->node(g->node_size() - 3).attribute(0));
    add_node(g, "Add", {p + "c2", x}, p + "s");
    add_node(g, "Relu", {p + "s"}, p + "y");
    x = p + "y";
  }
  add_node(g, "Flatten", {x}, "y");
  g->add_output()->set_name("y");
  return test::write_model("residual.onnx", m);
}

TEST(Plan, EpiloguesWeightsViewsAndLayouts) {
  const ModelPlan plan = import_onnx(residual_model());
  // Per block: conv+bias+relu (epilogue) and conv+bias+add+relu (one task, folded). The middle
  // block's first convolution is the same task as the last block's (weight 2); the others differ
  // in layout at the edges: the first block reads the NCHW graph input (in its convolution and
  // its residual), the last one writes NCHW for the Flatten.
  ASSERT_EQ(plan.tasks.size(), 5u);
  EXPECT_EQ(plan.steps.size(), 6u);
  int contractions = 0, weights = 0, shared = 0;
  for (const auto& t : plan.tasks) {
    weights += t.weight;
    shared += t.weight == 2;
    const Op op = parse_spec(t.spec);
    // Weights and biases are const (timed cold, as in a run of the model); activations are not.
    int constants = 0;
    for (const auto& tensor : op.tensors) constants += tensor.constant;
    EXPECT_EQ(constants, 2) << t.spec;  // the convolution's weight and bias
    EXPECT_FALSE(op.tensors.front().constant) << t.spec;
    if (!op.multi_stage()) {
      ++contractions;
      ASSERT_TRUE(op.epilogue.bias.has_value()) << t.spec;
      EXPECT_EQ(op.epilogue.relu, t.label == "Conv.Relu") << t.spec;
    } else {
      EXPECT_EQ(t.label, "Conv.Add.Relu");
      EXPECT_TRUE(fold_epilogue(op).has_value()) << t.spec;
    }
  }
  EXPECT_EQ(contractions, 2);
  EXPECT_EQ(weights, 6);
  EXPECT_EQ(shared, 1);
  // The Flatten is a view of the last block's output, which therefore stays row-major NCHW.
  const Graph& g = plan.graph;
  const int out = g.outputs[0];
  EXPECT_NE(plan.storage[out], out);
  EXPECT_TRUE(g.values[plan.storage[out]].layout.empty());
  EXPECT_TRUE(g.values[g.inputs[0]].layout.empty());
  int nhwc = 0;
  for (const auto& v : g.values) nhwc += v.layout == std::vector<int>{0, 2, 3, 1};
  EXPECT_GT(nhwc, 0);
}

}  // namespace
}  // namespace attune::graph
