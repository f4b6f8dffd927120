// network/model_library.hpp — `attune libgen --model`: a network as a standalone C library.
//
// Writes into out_dir (under libgen's rules: new, empty or its own earlier output with force;
// libgen/out_dir.hpp):
//   include/NAME.h        NAME_open(weights file) / NAME_infer(model, inputs, outputs) / NAME_close
//   src/NAME_model.c      the steps in order over one arena (buffer_plan.hpp), weights at fixed
//                         offsets of the weights blob; a kernel that packs a weight into its own
//                         layout (codegen/artifact.hpp) gets it packed once, in NAME_open
//   src/kernels/NAME_task<k>.c   each task's kernel: the database's best verified record, else
//                         its default kernel (task_kernels.hpp), entry renamed
//   NAME.weights          every constant the steps read, pre-packed in its layout's order
//   CMakeLists.txt, cmake/NAMEConfig.cmake   find_package(NAME) -> NAME::NAME
//   README.md
// Inputs and outputs are float32, dense, row-major, in the graph's order and shapes (README).
// Nothing in the output refers to attune or absolute paths.
#pragma once

#include <string>
#include <vector>

#include "graph/plan.hpp"

namespace attune::network {

struct ModelLibraryOptions {
  std::string db_path;  // tuned kernels (empty: defaults only)
  std::string out_dir;
  std::string name = "attune_model";  // C identifier: the library, header and symbol prefix
  std::string target = "cpu";
  bool force = false;
};

struct ModelLibraryResult {
  std::vector<std::string> files;  // relative to out_dir
  int tasks = 0, tuned = 0;
  std::int64_t weight_bytes = 0, arena_bytes = 0;
};

ModelLibraryResult generate_model_library(const graph::ModelPlan& plan, const ModelLibraryOptions& o);

}  // namespace attune::network
