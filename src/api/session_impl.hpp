// api/session_impl.hpp — what an attune::Session holds (session.cpp, model.cpp). Private to src/api.
#pragma once

#include <optional>
#include <string>

#include "attune/attune.hpp"
#include "db/db.hpp"
#include "ir/op.hpp"

namespace attune {

struct Session::Impl {
  std::string target_arg;   // as given: tune() and load_target() resolve it
  std::string target_name;  // what tasks are recorded under (tuning_target_name)
  std::string database;

  // The best ok record of `op`'s task, if the task exists and has one. `op` takes the name the
  // task was recorded under: the kernel's source names its op, so the same spec under another
  // label (or none) would not rebuild to the kernel that was measured.
  std::optional<Record> best_record(Op& op) const {
    const Database db = Database::open(database, OpenMode::read_only);
    const auto task = db.find_task(canonical_spec(op), target_name);
    if (!task) return std::nullopt;
    op.name = task->name;
    return db.best(task->id);
  }
};

}  // namespace attune
