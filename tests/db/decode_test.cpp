// decode_record() on rows built in memory (no database): what every record reader of src/db/
// and the fuzz target record_decode decode with. Rows read through SQLite meet the same checks
// (hostile_rows_test.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "db/decode.hpp"
#include "ir/error.hpp"

namespace attune::db {
namespace {

Value integer(std::int64_t v) { return Value{Value::Kind::integer, v, 0, ""}; }
Value real(double v) { return Value{Value::Kind::real, 0, v, ""}; }
Value text(std::string v) { return Value{Value::Kind::text, 0, 0, std::move(v)}; }
Value null() { return Value{}; }

// An ok record's row, in kRecordColumns order.
Row ok_row() {
  return {integer(7),         integer(1),         text(R"({"schema_version":1,"steps":[]})"),
          text("h"),          text("ok"),         text(""),
          text("[0.5,0.25]"), real(0.25),         real(1e-7),
          integer(2),         text("{}"),         text("null"),
          text("cc"),         text(R"(["-O3"])"), text("random"),
          integer(-1),        integer(3),         text("2025-01-31T12:34:56.789Z")};
}

std::string error_of(const Row& row) {
  try {
    decode_record(row, "x.db");
  } catch (const Error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(DecodeRecord, ReadsEveryColumn) {
  const Record r = decode_record(ok_row(), "x.db");
  EXPECT_EQ(r.id, 7);
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.times_s, (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ(r.median_s, 0.25);
  EXPECT_EQ(r.compile_s, 2.0);  // an integer where a real goes is a number
  EXPECT_EQ(r.flags, std::vector<std::string>{"-O3"});
  EXPECT_EQ(r.seed, ~std::uint64_t{0});  // stored bit-cast
  EXPECT_EQ(r.trial, 3);
}

TEST(DecodeRecord, RefusesNullMedianAndTextErrors) {
  Row row = ok_row();
  row[7] = null();
  EXPECT_EQ(error_of(row), "x.db: record 7: status ok but column median_s is NULL");
  row = ok_row();
  row[8] = text("abc");
  EXPECT_EQ(error_of(row), "x.db: record 7: column max_rel_error holds text, expected real or integer or null");
  row = ok_row();
  row[0] = text("7");
  EXPECT_EQ(error_of(row), "x.db: record ?: column id holds text, expected integer");
}

TEST(DecodeRecord, AFailedRecordMayLackTimes) {
  Row row = ok_row();
  row[4] = text("compile_error");
  row[7] = null();
  row[8] = null();
  const Record r = decode_record(row, "x.db");
  EXPECT_EQ(r.status, Status::compile_error);
  EXPECT_TRUE(std::isnan(r.median_s));
}

}  // namespace
}  // namespace attune::db
