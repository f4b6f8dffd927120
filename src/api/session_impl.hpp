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

  // The best ok record of `op`'s task, if the task exists and has one.
  std::optional<Record> best_record(const Op& op) const {
    const Database db = Database::open(database, OpenMode::read_only);
    const auto task = db.find_task(canonical_spec(op), target_name);
    if (!task) return std::nullopt;
    return db.best(task->id);
  }
};

}  // namespace attune
