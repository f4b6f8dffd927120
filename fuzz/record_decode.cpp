// Fuzz target record_decode: a database row, whoever wrote it, decodes to a Record or to an
// attune::Error naming the record (db::decode_record, the one decoder every reader uses).
//
// Input: the 18 columns of db::kRecordColumns separated by NUL bytes, each a storage class
// letter and the value: "n" NULL, "i<decimal>" integer, "r<decimal>" real, "t<bytes>" text,
// "b<bytes>" blob. Missing columns are NULL. The JSON columns (trace, times_s, features,
// hidden_features, flags) are where most of the decoding is.
#include <cstdlib>
#include <string>

#include "db/decode.hpp"
#include "fuzz.hpp"
#include "ir/error.hpp"

namespace {

attune::db::Value column(std::string_view field) {
  using attune::db::Value;
  Value v;
  if (field.empty()) return v;
  const std::string rest(field.substr(1));
  switch (field[0]) {
    case 'i':
      v.kind = Value::Kind::integer;
      v.integer = std::strtoll(rest.c_str(), nullptr, 10);
      break;
    case 'r':
      v.kind = Value::Kind::real;
      v.real = std::strtod(rest.c_str(), nullptr);
      break;
    case 't':
      v.kind = Value::Kind::text;
      v.bytes = rest;
      break;
    case 'b':
      v.kind = Value::Kind::blob;
      v.bytes = rest;
      break;
    default: break;
  }
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attune;
  std::string_view in = fuzz::as_text(data, size);
  db::Row row;
  while (row.size() < static_cast<std::size_t>(db::kRecordColumnCount)) {
    const std::size_t end = in.find('\0');
    row.push_back(column(in.substr(0, end)));
    in = end == std::string_view::npos ? std::string_view() : in.substr(end + 1);
  }
  try {
    const Record r = db::decode_record(row, "fuzzed.db");
    (void)r.measurement();
  } catch (const Error&) {
  }
  return 0;
}
