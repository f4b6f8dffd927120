// network/model_runner.hpp — runs a planned network (graph/plan.hpp) with attune's kernels.
//
// Each task runs the best verified kernel its database records for this target (rebuilt from
// the record and checked against the hash tuning measured), or, untuned, its default kernel
// (search/tuner.hpp default_artifact) and the runner says so. Kernels are built once (the
// build cache makes a second runner cheap) and loaded into this process. Intermediates live in
// one arena laid out before the first run (memory_plan.hpp); views share their source's bytes;
// weights are converted once at load, and a kernel that packs a weight whole (a pack at its
// root) gets it packed once, at load, per step (codegen/artifact.hpp's prepacked entry). Not
// safe to run() from two threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/plan.hpp"

namespace attune::network {

struct ModelRunOptions {
  std::string target = "cpu";  // a cpu target: "cpu", "x86-avx2", ... or a target file
  std::string db_path;         // tuned kernels from this database; empty: defaults only
  int threads = 0;             // OpenMP threads for every kernel (0: all cores)
  // Bytes the weights, the arena and the inputs and outputs may take together, checked before
  // any is allocated (0: half of physical memory); Error beyond it.
  std::uint64_t max_memory = 0;
  // Kernels loaded per task: the tuned best and the next fastest verified records, up to this
  // many, for choose() (network_pick.hpp). 1: the one kernel each task runs.
  int alternatives = 1;
};

struct TaskKernel {
  bool tuned = false;
  std::int64_t record = 0;   // the record it was rebuilt from (tuned)
  double tuned_seconds = 0;  // what tuning measured for it (tuned)
  std::string why_default;   // untuned although the database has a record: why it was not used
  bool picked = false;       // the network pick's choice over the tuned best (network_pick.hpp)
};

class ModelRunner {
 public:
  // Builds and loads every task's kernel. Throws Error when the target is not a CPU this
  // machine runs, or a kernel does not build or load.
  ModelRunner(graph::ModelPlan plan, const ModelRunOptions& options);
  ~ModelRunner();
  ModelRunner(ModelRunner&&) noexcept;

  // One tensor per graph input, in graph input order (f32, the input's shape); the graph's
  // outputs in order. Throws Error for a missing, extra or misshapen input.
  // With `task_seconds`, each step is timed and its time added to its task's entry (sized to
  // the plan's tasks): where a run's time goes.
  std::vector<graph::HostTensor> run(const std::vector<graph::HostTensor>& inputs,
                                     std::vector<double>* task_seconds = nullptr);

  const graph::ModelPlan& plan() const;
  const std::vector<TaskKernel>& kernels() const;  // per task: the kernel it runs now
  // The kernels loaded for `task` (options.alternatives), the one it started with first, and
  // which one it runs from the next run() on.
  const std::vector<TaskKernel>& alternatives(int task) const;
  void choose(int task, int alternative);
  std::int64_t arena_bytes() const;                // intermediates, after sharing
  std::int64_t unshared_bytes() const;             // the same without sharing
  std::int64_t packed_bytes() const;               // weights the running kernels packed at load

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace attune::network
