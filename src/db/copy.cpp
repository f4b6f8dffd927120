// copy_database(): records, tasks and cost models from one database into another (db.hpp),
// through Database's own reads and inserts, so each side keeps its own checks.
#include <set>
#include <tuple>

#include "db/db.hpp"

namespace attune {

namespace {

// What makes two records the same measurement, whatever their ids.
using RecordKey = std::tuple<std::string, std::int64_t, std::string>;  // trace_hash, trial, created_at

RecordKey key_of(const Record& r) { return {r.trace_hash, r.trial, r.created_at}; }

}  // namespace

CopySummary copy_database(const Database& src, Database& dst) {
  CopySummary out;
  for (const TaskInfo& t : src.tasks()) {
    ++out.tasks;
    const TaskInfo into = dst.get_or_create_task(t.name, t.spec, t.target);
    std::set<RecordKey> present;
    for (const Record& r : dst.records(into.id)) present.insert(key_of(r));
    for (Record r : src.records(t.id)) {
      if (present.count(key_of(r))) {
        ++out.records_present;
        continue;
      }
      r.task_id = into.id;
      dst.insert(r);
      ++out.records;
    }
  }
  std::set<std::tuple<std::string, std::string, std::string>> models;  // target, kind, bytes
  for (const ModelBlob& m : dst.models()) models.emplace(m.target, m.kind, m.blob);
  for (const ModelBlob& m : src.models()) {
    if (!models.emplace(m.target, m.kind, m.blob).second) {
      ++out.models_present;
      continue;
    }
    dst.save_model(m.target, m.kind, m.blob);
    ++out.models;
  }
  return out;
}

}  // namespace attune
