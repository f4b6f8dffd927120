// graph/conv_geometry.hpp — the window arithmetic of Conv, ConvTranspose and the pools, per
// spatial axis, from ONNX's attributes (kernel_shape, strides, dilations, pads, auto_pad,
// output_padding, output_shape, ceil_mode) and defaults. Shape inference and lowering both
// read it, so the two cannot disagree.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.hpp"

namespace attune::graph {

struct Window {
  std::int64_t in = 0, kernel = 1, stride = 1, dilation = 1, pad_begin = 0, pad_end = 0, out = 0;
};

enum class WindowKind { conv, conv_transpose, pool };

// One Window per spatial axis of the node's first input (layout N, C, spatial...). `kernel`
// comes from kernel_shape, else (conv) from the weight's trailing dimensions.
std::vector<Window> windows(const Graph& g, int node, WindowKind kind);

}  // namespace attune::graph
