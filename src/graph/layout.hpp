// graph/layout.hpp — the memory layouts of a network's buffers, chosen once for the whole plan.
//
// ONNX means NCHW; attune's convolution kernels vectorise best over channels, which NHWC puts
// innermost. So in a network with 2-D convolutions every 4-D activation that only tasks touch
// is stored NHWC, and every convolution weight is pre-packed once at load time as R S C K
// (the conv2d template's NHWC weight order), so no task pays a reorder per call. Graph inputs
// and outputs, and anything a view (Reshape, Flatten...) reinterprets, keep ONNX's layout: a
// view is only the same bytes under another shape when they are row-major.
#pragma once

#include "graph/graph.hpp"

namespace attune::graph {

void choose_layouts(Graph& g);

// A constant's elements as float in the memory order of `layout` (what the runner loads).
std::vector<float> physical_floats(const HostTensor& t, const std::vector<int>& layout);

}  // namespace attune::graph
