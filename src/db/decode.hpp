// db/decode.hpp — a record row, from the values SQLite gave to a Record, checked.
//
// Every reader of records (records(), record(), best(), history(), export) decodes its rows
// with decode_record() and nothing else, so a row written by another program (or by hand
// with sqlite3) meets one set of checks: each column's storage class, an ok record's median,
// the JSON columns through parse_json_limited, the shapes of times_s and flags. Each refusal
// is attune::Error "ORIGIN: record ID: what". The values are plain data (no SQLite handle),
// so the decoder is tested and fuzzed on its own (fuzz/record_decode.cpp).
// Tests: tests/db/hostile_rows_test.cpp, tests/db/decode_test.cpp.
#pragma once

#include <cstddef>
#include <string>

#include "db/db.hpp"
#include "db/value.hpp"

namespace attune::db {

// The column list every record query selects, in the order decode_record() reads.
inline constexpr const char* kRecordColumns =
    "r.id, r.task_id, r.trace, r.trace_hash, r.status, r.error, r.times_s, r.median_s, "
    "r.max_rel_error, r.compile_s, r.features, r.hidden_features, r.compiler, r.flags, "
    "r.strategy, r.seed, r.trial, r.created_at";
inline constexpr int kRecordColumnCount = 18;

// The record in row[first, first + kRecordColumnCount). `origin` (the database path) starts
// every message.
Record decode_record(const Row& row, const std::string& origin, std::size_t first = 0);

}  // namespace attune::db
