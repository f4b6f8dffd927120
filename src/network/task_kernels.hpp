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

struct TaskCandidate {
  Artifact artifact;
  TaskKernel info;  // tuned (which record) or default
};

struct TaskArtifacts {
  // Per task: the kernel it runs, then, with `alternatives` > 1, the next fastest verified
  // records (the tuned best among them when a pick runs first), `alternatives` in all at most.
  std::vector<std::vector<TaskCandidate>> tasks;
};

// Throws Error when the target is not a CPU this machine runs.
TaskArtifacts task_artifacts(const graph::ModelPlan& plan, const std::string& target, const std::string& db_path,
                             int threads, int alternatives = 1);

}  // namespace attune::network
