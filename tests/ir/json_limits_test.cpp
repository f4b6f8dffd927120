// json_limits_test.cpp — parse_json_limited(): nesting and size are bounded before nlohmann's
// parser sees the text, and every parser failure is attune::Error naming what was read.
#include <gtest/gtest.h>

#include <string>

#include "ir/error.hpp"
#include "ir/json_limits.hpp"

namespace attune {
namespace {

std::string error_of(const std::string& text, JsonLimits limits = {}) {
  try {
    parse_json_limited(text, "thing", limits);
  } catch (const Error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(JsonLimits, DeepNestingIsRefusedBeforeParsing) {
  EXPECT_EQ(error_of(std::string(100000, '[')), "thing: JSON nested deeper than 64 levels (at byte 64)");
  EXPECT_EQ(error_of("{\"a\":" + std::string(100000, '{')), "thing: JSON nested deeper than 64 levels (at byte 68)");
  // 64 levels are fine; brackets inside strings (escaped quotes included) do not count.
  EXPECT_NO_THROW(parse_json_limited(std::string(64, '[') + std::string(64, ']'), "thing"));
  EXPECT_NO_THROW(parse_json_limited("[\"\\\"" + std::string(1000, '[') + "\"]", "thing"));
}

TEST(JsonLimits, ParserFailuresAreUserErrors) {
  EXPECT_EQ(error_of("{\"schema_version\": 1e400}"), "thing: invalid JSON: number overflow parsing '1e400'");
  EXPECT_EQ(error_of("{"),
            "thing: invalid JSON: line 1, column 2: syntax error while parsing object key - "
            "unexpected end of input; expected string literal");
  EXPECT_EQ(error_of("[1,\n2"),
            "thing: invalid JSON: line 2, column 2: syntax error while parsing array - "
            "unexpected end of input; expected ']'");
}

TEST(JsonLimits, SizeIsBounded) {
  JsonLimits small;
  small.max_bytes = 10;
  EXPECT_EQ(error_of("[1,2,3,4,5,6]", small), "thing: JSON text too large (13 bytes; at most 10)");
  EXPECT_EQ(parse_json_limited("[1,2]", "thing", small), nlohmann::json::array({1, 2}));
}

}  // namespace
}  // namespace attune
