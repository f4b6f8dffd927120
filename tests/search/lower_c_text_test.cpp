// The schedules of tests/search/fixtures/c_text.tsv (see c_text_stability_test.cpp) taken the
// way the engine and rebuild_recorded() take a record's trace: read by the schedule codec, which
// must give back the very text, and lowered by lower() for the target of that vector width,
// which must give the very C the fixture holds the hash of.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "codegen/codegen.hpp"
#include "ir/hash.hpp"
#include "schedule/schedule.hpp"

namespace attune {
namespace {

TEST(LowerCText, RecordedTracesLowerToTheFixturesC) {
  const Target avx2 = load_target("x86-avx2"), avx512 = load_target("x86-avx512");
  std::ifstream in(std::string(ATTUNE_SOURCE_DIR) + "/tests/search/fixtures/c_text.tsv");
  ASSERT_TRUE(in);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string spec, bits, trace, hash;
    std::getline(fields, spec, '\t');
    std::getline(fields, bits, '\t');
    std::getline(fields, trace, '\t');
    std::getline(fields, hash, '\t');
    const Schedule s = schedule_from_string(trace);
    EXPECT_EQ(schedule_to_string(s), trace);
    const Artifact a = lower(s, op_from_cli(spec), bits == "512" ? avx512 : avx2).artifact;
    EXPECT_EQ(content_hash(a.source), hash) << spec << " at " << bits << " bits: " << trace;
    ++n;
  }
  EXPECT_GT(n, 400);
}

}  // namespace
}  // namespace attune
