// db/schema.hpp — opening a database file safely: check first, write only what is ours.
//
// open_checked() refuses, before any write, a file that is not SQLite, an SQLite file whose
// tables are not attune's, an unknown schema_version, or one that fails PRAGMA quick_check.
// Only a missing or empty file gets a schema. This is what keeps `attune --db some.db` from
// ever damaging a file it did not create.
#pragma once

#include <memory>
#include <string>

#include "db/db.hpp"
#include "db/sqlite.hpp"

namespace attune::db {

std::unique_ptr<Connection> open_checked(const std::string& path, OpenMode mode);

}  // namespace attune::db
