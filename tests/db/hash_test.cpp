// The task hash: content_hash (tests/ir/hash_test.cpp) over spec and target, length-delimited.
#include "db_test_util.hpp"

namespace attune {
namespace {

TEST(DbHash, TaskHashSeparatesSpecFromTarget) {
  EXPECT_NE(task_hash("ab", "c"), task_hash("a", "bc"));
  EXPECT_EQ(task_hash("spec", "x86"), task_hash("spec", "x86"));
  EXPECT_NE(task_hash("spec", "x86"), task_hash("spec", "x86 "));
}

}  // namespace
}  // namespace attune
