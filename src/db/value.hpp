// db/value.hpp — a column value as SQLite stores it, apart from SQLite: rows are read into
// these (Statement::values) and decoded from them (decode.hpp), so decoding needs no database.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attune::db {

struct Value {
  enum class Kind { null, integer, real, text, blob };
  Kind kind = Kind::null;
  std::int64_t integer = 0;
  double real = 0;
  std::string bytes;  // text or blob
};
using Row = std::vector<Value>;

// "integer", "real", "text", "blob" or "null".
const char* kind_name(Value::Kind k);

}  // namespace attune::db
