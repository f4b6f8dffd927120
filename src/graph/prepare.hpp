// graph/prepare.hpp — from an imported Graph to one attune can plan: every operator known,
// every shape inferred, constants folded, batch norms folded into the convolutions before
// them, and nodes no output needs dropped.
#pragma once

#include "graph/graph.hpp"

namespace attune::graph {

// Throws Error naming the node for an unsupported operator (with the list of supported ones),
// bad attributes or shapes, or integer tensors computed at run time.
void prepare(Graph& g);

}  // namespace attune::graph
