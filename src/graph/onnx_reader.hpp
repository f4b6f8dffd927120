// graph/onnx_reader.hpp — an ONNX file into a Graph (protobuf definitions from libonnx-dev).
#pragma once

#include <map>
#include <string>

#include "graph/graph.hpp"

namespace attune::graph {

// Shapes the command line fixes for graph inputs (`--shape NAME=1,3,224,224`).
using ShapeOverrides = std::map<std::string, Shape>;

// Reads and checks the model file: a protobuf ModelProto of the default ONNX domain at opset
// 11 to 21, initializers stored in the file, every graph input with a static shape (after the
// overrides), nodes in topological order. Shapes of node outputs are not known yet
// (prepare.hpp infers them). Throws Error naming the file, and the node or input at fault.
Graph read_onnx(const std::string& path, const ShapeOverrides& shapes = {});
// The same for a model's bytes already in memory; `what` names it in errors (fuzz/onnx_import).
Graph read_onnx_bytes(const std::string& bytes, const std::string& what, const ShapeOverrides& shapes = {});

// Parses "NAME=1,3,224,224" (--shape); Error for anything else.
std::pair<std::string, Shape> parse_shape_override(const std::string& text);

}  // namespace attune::graph
