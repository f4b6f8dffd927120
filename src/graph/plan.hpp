// graph/plan.hpp — a prepared Graph as tuning tasks and the steps that run them.
//
// partition() groups nodes into fused subgraphs: a contraction, reduction or elementwise node
// starts a group, and the elementwise nodes (and reductions, behind anything but a contraction)
// that consume nothing but its latest value join it. Each group becomes one attune op (a
// contraction with a bias/relu epilogue where that is all it is, else a multi-stage op), and
// groups with the same computation (canonical spec) are one task run `weight` times. Views
// (Reshape, Flatten, Squeeze, Unsqueeze) share their input's buffer and run nothing.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace attune::graph {

struct Group {
  std::vector<int> nodes;  // in graph order
  int head = -1;           // the value it produces
  bool has_contraction = false;
};

std::vector<Group> partition(const Graph& g);

struct Task {
  std::string spec;   // attune spec text, with an op label
  std::string label;  // what it fuses, e.g. "Conv.Relu"
  int weight = 0;     // how many steps run it
  std::string where;  // the first node it came from (describe()), for reports
};

struct Step {
  int task = -1;
  std::vector<int> args;   // graph values bound to the task op's tensors, in declaration order
  std::vector<int> nodes;  // the graph nodes it computes
};

struct ModelPlan {
  Graph graph;
  std::vector<Task> tasks;
  std::vector<Step> steps;  // in an order that respects every dependency
  std::vector<int> storage; // per value: the value whose buffer it uses (itself, or a view's source)
};

// Throws Error naming the node when a group cannot be expressed as an attune op.
ModelPlan plan_model(Graph g);

}  // namespace attune::graph
