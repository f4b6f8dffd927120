// task_kernels.cpp — tuned or default kernels per task (task_kernels.hpp).
#include "network/task_kernels.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "db/db.hpp"
#include "hw/target.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "network/network_pick.hpp"
#include "search/tuner.hpp"

namespace attune::network {

namespace {

// The task's verified records fastest first (measured at `threads`, else at any count, as
// Database::best ranks them), one per trace, rebuilt, up to `count`. A record this attune no
// longer rebuilds to the kernel it measured (the code generator changed since) is passed over
// for the next, up to a few; it is not a reason to refuse the model, and `why` says why the
// first one failed when none was left.
std::vector<TaskCandidate> fastest(const Database& db, std::int64_t task_id, const Op& op, const Target& target,
                               int threads, std::size_t count, std::string& why) {
  std::vector<TaskCandidate> r;
  std::set<std::int64_t> refused;
  std::set<std::string> taken;  // trace hashes
  const RecordFilter at_threads = measured_at(threads);
  const RecordFilter open = [&](const Record& rec) { return !refused.count(rec.id) && !taken.count(rec.trace_hash); };
  for (int failures = 0; r.size() < count && failures < 4;) {
    std::optional<Record> best = db.best(task_id, [&](const Record& rec) { return (!at_threads || at_threads(rec)) && open(rec); });
    if (!best && r.empty()) best = db.best(task_id, open);
    if (!best) break;
    try {
      r.push_back({rebuild_recorded(op, target, *best), {true, best->id, best->median_s, ""}});
      taken.insert(best->trace_hash);
    } catch (const Error& e) {
      refused.insert(best->id);
      ++failures;
      if (why.empty()) why = e.what();
    }
  }
  return r;
}

}  // namespace

TaskArtifacts task_artifacts(const graph::ModelPlan& plan, const std::string& target_arg, const std::string& db_path,
                             int threads, int alternatives) {
  const Target target = load_target(target_arg);
  if (target.kind != TargetKind::cpu)
    throw Error("target " + target.name + " is not a CPU target; networks run on a CPU");
  if (const auto why = host_cannot_run(target); !why.empty()) throw Error(why);
  std::optional<Database> db;
  if (!db_path.empty()) db = Database::open(db_path, OpenMode::read_only);
  const std::string target_name = tuning_target_name(target_arg);
  const std::map<std::string, NetworkPick> picks =
      db ? load_network_picks(*db, target_name, threads) : std::map<std::string, NetworkPick>{};
  TaskArtifacts r;
  for (const auto& task : plan.tasks) {
    const Op op = parse_spec(task.spec);
    const std::string spec = canonical_spec(op);
    std::vector<TaskCandidate> found;
    std::string why;
    if (db)
      if (auto t = db->find_task(spec, target_name))
        found = fastest(*db, t->id, op, target, threads, static_cast<std::size_t>(std::max(1, alternatives)), why);
    // The network's pick replaces the tuned best while that is still the record it beat.
    if (auto p = picks.find(spec); p != picks.end() && !found.empty() && found[0].info.record == p->second.over)
      if (auto rec = db->record(p->second.record); rec && rec->ok()) try {
          TaskCandidate picked{rebuild_recorded(op, target, *rec), {true, rec->id, rec->median_s, "", true}};
          std::erase_if(found, [&](const TaskCandidate& c) { return c.info.record == rec->id; });
          found.insert(found.begin(), std::move(picked));
        } catch (const Error&) {  // no longer rebuilds: the tuned best runs
        }
    if (found.empty()) found.push_back({default_artifact(op, target, threads), {false, 0, 0, why}});
    if (const auto n = static_cast<std::size_t>(std::max(1, alternatives)); found.size() > n)
      found.erase(found.begin() + static_cast<std::ptrdiff_t>(n), found.end());
    r.tasks.push_back(std::move(found));
  }
  return r;
}

}  // namespace attune::network
