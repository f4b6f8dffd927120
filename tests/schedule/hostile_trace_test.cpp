// hostile_trace_test.cpp — trace text written to crash or fool the reader: numbers beyond a
// double, fractions where integers belong, unbounded nesting, keys attune does not read.
#include <gtest/gtest.h>

#include <string>

#include "ir/error.hpp"
#include "schedule/schedule.hpp"
#include "schedule/transform.hpp"

namespace attune {
namespace {

std::string error_of(const std::string& text) {
  try {
    trace_from_string(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(HostileTrace, NumbersThatDoNotFit) {
  EXPECT_EQ(error_of(R"({"schema_version": 1e400, "steps": []})"),
            "trace: invalid JSON: number overflow parsing '1e400'");
  EXPECT_EQ(error_of(R"({"schema_version": 1.5, "steps": []})"),
            "trace: field 'schema_version' must be an integer (or a list of integers) in range");
  EXPECT_EQ(
      error_of(R"({"schema_version": 1, "steps": [{"kind": "split", "loop": "m", "factors": [1e300, 2]}]})"),
      "trace: steps[0]: transformation 'split': field 'factors' must be an integer (or a list of integers) in range");
  EXPECT_EQ(error_of(R"({"schema_version": 4294967297, "steps": []})"),
            "trace: field 'schema_version' must be an integer (or a list of integers) in range");
}

TEST(HostileTrace, DeepNestingIsAnError) {
  const std::string deep = R"({"schema_version": 1, "steps": [], "x": )" + std::string(100000, '[');
  EXPECT_EQ(error_of(deep).rfind("trace: JSON nested deeper than 64 levels", 0), 0u) << error_of(deep);
}

TEST(HostileTrace, UnknownKeysAreNotCarriedThrough) {
  const Trace t = trace_from_string(
      R"({"schema_version": 1, "evil": "*/ evil(); /*", "steps": [{"kind": "parallel", "loop": "m", "x": "*/"}]})");
  const std::string again = trace_to_string(t);
  EXPECT_EQ(again.find("evil"), std::string::npos) << again;
  EXPECT_EQ(again.find("*/"), std::string::npos) << again;
}

}  // namespace
}  // namespace attune
