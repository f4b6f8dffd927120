// db/schema.hpp — opening a database file safely: check first, write only what is ours.
//
// open_checked() refuses, before any write, a file that is not SQLite, an SQLite file whose
// tables are not attune's, an unknown schema_version, or one that fails PRAGMA quick_check.
// Only a missing or empty file gets a schema. This is what keeps `attune --db some.db` from
// ever damaging a file it did not create.
#pragma once

#include <memory>
#include <string>

#include "db/connection.hpp"
#include "db/db.hpp"

namespace attune::db {

std::unique_ptr<Connection> open_checked(const std::string& path, OpenMode mode);
// The same for a PostgreSQL database (schema_postgres.cpp): a database with tables but no
// attune meta is refused untouched; an empty one gets the schema when opened for writing.
std::unique_ptr<Connection> open_postgres(const std::string& url, OpenMode mode);

// The schema_version in the database's meta table (either backend), checked: Error naming the
// path when there is none, or when it is not one this build reads (1 to kDbSchemaVersion).
int stored_schema_version(Connection& c);

}  // namespace attune::db
