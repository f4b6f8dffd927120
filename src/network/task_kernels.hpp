// network/task_kernels.hpp — the kernel of every task of a planned network: the kernel the
// network pick chose for it (network_pick.hpp), else the database's best verified record for
// the target (rebuilt, its C hash checked), else, untuned, the task's default kernel. What
// run-model loads and what libgen --model writes out, so both run the same code.
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
  // Per task, with `alternatives` > 1: the next fastest verified records after the tuned best
  // (which is artifacts[t] unless a pick replaced it), up to alternatives - 1 of them.
  std::vector<std::vector<Artifact>> runner_up_artifacts;
  std::vector<std::vector<TaskKernel>> runner_up_info;
};

// Throws Error when the target is not a CPU this machine runs.
TaskArtifacts task_artifacts(const graph::ModelPlan& plan, const std::string& target, const std::string& db_path,
                             int threads, int alternatives = 1);

}  // namespace attune::network
