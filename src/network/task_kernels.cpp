// task_kernels.cpp — tuned or default kernels per task (task_kernels.hpp).
#include "network/task_kernels.hpp"

#include <algorithm>
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
    TaskKernel info;
    std::optional<Artifact> artifact;
    if (db)
      if (auto t = db->find_task(canonical_spec(op), target_name)) {
        // The best record measured at the count it will run at, else at any (older records,
        // another count). A record this attune no longer rebuilds to the kernel it measured (the
        // code generator changed since) is passed over for the next best, up to a few; it is not
        // a reason to refuse the model, and the caller says why a task fell back to its default.
        std::vector<std::int64_t> refused;
        const RecordFilter not_refused = [&](const Record& rec) {
          return std::find(refused.begin(), refused.end(), rec.id) == refused.end();
        };
        const RecordFilter at_threads = measured_at(threads);
        for (int attempt = 0; attempt < 4 && !artifact; ++attempt) {
          std::optional<Record> best =
              db->best(t->id, [&](const Record& rec) { return (!at_threads || at_threads(rec)) && not_refused(rec); });
          if (!best) best = db->best(t->id, not_refused);
          if (!best) break;
          try {
            artifact = rebuild_recorded(op, target, *best);
            info = {true, best->id, best->median_s, ""};
          } catch (const Error& e) {
            refused.push_back(best->id);
            if (info.why_default.empty()) info.why_default = e.what();
          }
        }
      }
    r.artifacts.push_back(artifact ? std::move(*artifact) : default_artifact(op, target, threads));
    r.info.push_back(info);
  }
  return r;
}

}  // namespace attune::network
