// graph/import.hpp — an ONNX file to a plan of tuning tasks, in one call (`attune import`).
#pragma once

#include <string>

#include "graph/onnx_reader.hpp"
#include "graph/plan.hpp"

namespace attune::graph {

// read_onnx, prepare, plan_model.
ModelPlan import_onnx(const std::string& path, const ShapeOverrides& shapes = {});
// The same for a model's bytes in memory; `what` names it in errors.
ModelPlan import_onnx_bytes(const std::string& bytes, const std::string& what, const ShapeOverrides& shapes = {});

// What `attune import` prints: the graph's inputs and outputs, the op counts, and each task
// with its weight, label and spec.
std::string describe_plan(const ModelPlan& plan, bool with_specs);

}  // namespace attune::graph
