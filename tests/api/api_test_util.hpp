// Helpers for the C++ API's tests: a database holding one hand-made record, so that loading a
// kernel costs one compile and no tuning.
#pragma once

#include <string>

#include "db/db.hpp"
#include "ir/op.hpp"
#include "search/tuner.hpp"

namespace attune::test {

// The untransformed loop nest: a schedule every op has.
inline const char* kPlainTrace = R"({"schema_version":1,"steps":[]})";

// Records `trace` as an ok measurement of `spec` on this CPU's target ("cpu") in `db_path`.
inline void record_trace(const std::string& db_path, const std::string& spec, const std::string& trace,
                         double median_s = 1e-3) {
  const Op op = op_from_cli(spec);
  Database db = Database::open(db_path);
  const TaskInfo task = db.get_or_create_task(op.name, canonical_spec(op), tuning_target_name("cpu"));
  Record r;
  r.task_id = task.id;
  r.trace = trace;
  r.trace_hash = content_hash(trace);
  r.status = Status::ok;
  r.times_s = {median_s};
  r.median_s = median_s;
  r.strategy = "test";
  db.insert(r);
}

}  // namespace attune::test
