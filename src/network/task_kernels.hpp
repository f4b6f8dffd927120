// network/task_kernels.hpp — the kernel of every task of a planned network: the database's best
// verified record for the target (rebuilt, its C hash checked) or, untuned, the task's default
// kernel. What run-model loads and what libgen --model writes out, so both run the same code.
#pragma once

#include <string>
#include <vector>

#include "codegen/artifact.hpp"
#include "graph/plan.hpp"
#include "network/model_runner.hpp"

namespace attune::network {

struct TaskArtifacts {
  std::vector<Artifact> artifacts;  // per task
  std::vector<TaskKernel> info;     // per task: tuned or default
};

// Throws Error when the target is not a CPU this machine runs.
TaskArtifacts task_artifacts(const graph::ModelPlan& plan, const std::string& target, const std::string& db_path,
                             int threads);

}  // namespace attune::network
