// task_kernels.cpp — tuned or default kernels per task (task_kernels.hpp).
#include "network/task_kernels.hpp"

#include <optional>

#include "db/db.hpp"
#include "hw/target.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "search/tuner.hpp"

namespace attune::network {

TaskArtifacts task_artifacts(const graph::ModelPlan& plan, const std::string& target_arg, const std::string& db_path,
                             int threads) {
  const Target target = load_target(target_arg);
  if (target.kind != TargetKind::cpu)
    throw Error("target " + target.name + " is not a CPU target; networks run on a CPU");
  if (const auto why = host_cannot_run(target); !why.empty()) throw Error(why);
  std::optional<Database> db;
  if (!db_path.empty()) db = Database::open(db_path, OpenMode::read_only);
  const std::string target_name = tuning_target_name(target_arg);
  TaskArtifacts r;
  for (const auto& task : plan.tasks) {
    const Op op = parse_spec(task.spec);
    std::optional<Record> best;
    if (db)
      if (auto t = db->find_task(canonical_spec(op), target_name)) {
        // Measured at the count it will run at; else any (older records, another count).
        best = best_measured_at(*db, t->id, threads);
        if (!best) best = db->best(t->id);
      }
    if (best) {
      r.artifacts.push_back(rebuild_recorded(op, target, *best));
      r.info.push_back({true, best->id, best->median_s});
    } else {
      r.artifacts.push_back(default_artifact(op, target, threads));
      r.info.push_back({});
    }
  }
  return r;
}

}  // namespace attune::network
