#include "search/stratified_order.hpp"

#include <algorithm>
#include <map>
#include <random>

#include <gtest/gtest.h>

namespace attune {
namespace {

TEST(StratifiedOrder, EachGroupsBestComesBeforeAnyGroupsSecond) {
  // Ranked 3 0 4 1 2 5; groups: 0,1,2 -> a (0), 3,4 -> b (1), 5 -> c (2).
  const std::vector<int> group{0, 0, 0, 1, 1, 2};
  EXPECT_EQ(stratified_order({3, 0, 4, 1, 2, 5}, group), (std::vector<std::size_t>{3, 0, 5, 4, 1, 2}));
  // One group: the ranking unchanged.
  EXPECT_EQ(stratified_order({2, 0, 1}, {7, 7, 7}), (std::vector<std::size_t>{2, 0, 1}));
  EXPECT_TRUE(stratified_order({}, {}).empty());
}

// On random rankings and groups (an independent check of the definition): a permutation of the
// ranking, each group's members in ranking order, and the k-th member of any group placed
// before the (k+1)-th member of every group.
TEST(StratifiedOrder, RandomRankingsKeepEveryPropertyOfTheDefinition) {
  std::mt19937_64 rng(11);
  for (int draw = 0; draw < 200; ++draw) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 20)(rng);
    std::vector<int> group(n);
    for (auto& g : group) g = std::uniform_int_distribution<int>(0, 3)(rng);
    std::vector<std::size_t> ranked(n);
    for (std::size_t i = 0; i < n; ++i) ranked[i] = i;
    std::shuffle(ranked.begin(), ranked.end(), rng);
    const auto out = stratified_order(ranked, group);
    ASSERT_TRUE(std::is_permutation(out.begin(), out.end(), ranked.begin(), ranked.end()));
    std::map<std::size_t, std::size_t> rank_of, member_of;  // index -> position in ranking; -> k-th of its group
    for (std::size_t p = 0; p < n; ++p) rank_of[ranked[p]] = p;
    std::map<int, std::size_t> seen;
    for (const std::size_t i : ranked) member_of[i] = seen[group[i]]++;
    std::map<int, std::size_t> last_rank;
    std::size_t last_member = 0;
    for (const std::size_t i : out) {
      if (last_rank.count(group[i])) {
        ASSERT_GT(rank_of[i], last_rank[group[i]]);
      }
      last_rank[group[i]] = rank_of[i];
      ASSERT_GE(member_of[i], last_member);  // rounds never go back
      last_member = member_of[i];
    }
  }
}

}  // namespace
}  // namespace attune
