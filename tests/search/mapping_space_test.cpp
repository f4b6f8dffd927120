// The mapping space and the arm bandit (AMOS's search over mappings x schedules): arms and
// their knobs, one spelling per candidate, tensorized candidates that replay from their trace
// text, older loop-nest records read back as arm 0, a budget shared by results, and a tuning
// run over mappings whose every kernel equals the reference.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "codegen/codegen.hpp"
#include "db/db.hpp"
#include "ir/error.hpp"
#include "search/tuner.hpp"
#include "temp_dir.hpp"

namespace attune {
namespace {

const Target& host() {
  static const Target t = load_target("x86-avx2");
  return t;
}

std::size_t knob_index(const Space& s, const std::string& name) {
  for (std::size_t i = 0; i < s.knobs().size(); ++i)
    if (s.knobs()[i].name == name) return i;
  throw Error("no knob " + name);
}

TEST(MappingSpace, GemmHasTheNestArmAndBothMappings) {
  const Op op = op_from_cli("gemm:M=12,N=20,K=9");
  const auto s = make_mapping_space(op, host(), {});
  EXPECT_EQ(s->version(), "cpu-map-v3");
  ASSERT_EQ(s->arm_knob(), 0);
  ASSERT_EQ(s->knobs()[0].choices.size(), 3u);  // nest + avx2 mappings #1 (i<-m) and #4 (i<-n)
  EXPECT_EQ(s->arm_name(0), "loop-nest schedules");
  // The streaming mapping (columns n contiguous in B and C) ranks first.
  EXPECT_NE(s->arm_name(1).find("mapping #1 (i<-m j<-n k<-k)"), std::string::npos) << s->arm_name(1);
  EXPECT_NE(s->arm_name(2).find("mapping #4"), std::string::npos) << s->arm_name(2);
  EXPECT_EQ(count_cpu_mappings(op, host()), 2);

  MappingSpaceOptions only;
  only.with_nest = false;
  EXPECT_EQ(make_mapping_space(op, host(), only)->knobs()[0].choices.size(), 2u);
  only.max_mappings = 1;
  EXPECT_EQ(make_mapping_space(op, host(), only)->knobs()[0].choices.size(), 1u);
}

TEST(MappingSpace, NoArmIsAnErrorThatNamesTheOp) {
  // Depthwise has no valid mapping onto the outer-product FMA.
  const Op op = op_from_cli("depthwise_conv2d:N=1,H=6,W=6,C=9,R=3,S=3,stride=1,pad=1,layout=NHWC");
  MappingSpaceOptions only;
  only.with_nest = false;
  try {
    make_mapping_space(op, host(), only);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no mapping of depthwise_conv2d onto an intrinsic of x86-avx2"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(make_mapping_space(op, host(), {})->knobs()[0].choices.size(), 1u);  // the nest arm alone
}

TEST(MappingSpace, EveryCandidateHasOneSpellingAndReplaysFromItsTrace) {
  const Op op = op_from_cli("conv1d:N=1,L=9,C=5,K=10,R=3,stride=2,pad=1,layout=NLC");
  MappingSpaceOptions mo;
  mo.threads = 2;
  const auto s = make_mapping_space(op, host(), mo);
  const std::size_t rows = knob_index(*s, "t_rows"), vec = knob_index(*s, "vec_tile");
  std::mt19937_64 rng(5);
  int tensorized = 0;
  for (int i = 0; i < 60; ++i) {
    const Config c = s->random_config(rng);
    ASSERT_TRUE(s->admissible(c));
    const bool nest = c[0] == 0;
    EXPECT_EQ(s->knob_used(c, rows), !nest);
    EXPECT_EQ(s->knob_used(c, vec), nest);
    EXPECT_EQ(c[nest ? rows : vec], 0) << "an unused knob off its first choice";
    Config other = c;
    other[nest ? rows : vec] = 1;
    EXPECT_FALSE(s->admissible(other)) << "a second spelling of the same candidate";
    EXPECT_EQ(s->describe(c).contains("t_rows"), !nest);

    const std::string text = s->trace_json(c);
    const nlohmann::json j = nlohmann::json::parse(text);
    if (nest) {
      EXPECT_EQ(text, trace_to_string(s->trace(c)));  // the same text the plain space records
      continue;
    }
    ++tensorized;
    ASSERT_EQ(j.at("steps").size(), 1u);
    EXPECT_EQ(j["steps"][0].at("kind"), "tensorize");
    EXPECT_EQ(j["steps"][0]["schedule"].at("rows"), s->knobs()[rows].choices[c[rows]]);
    EXPECT_THROW(s->trace(c), Error);
    // The engine builds every candidate from this text, as libgen and `attune best` do.
    EXPECT_NE(lower(schedule_from_string(text), op, host()).artifact.source.find("attune_kernel"), std::string::npos);
  }
  EXPECT_GT(tensorized, 10);
}

TEST(MappingSpace, ReadsPlainLoopNestRecordsAsArmZero) {
  const Op op = op_from_cli("gemm:M=12,N=20,K=9");
  const auto plain = make_cpu_space(op, 1);
  const auto armed = make_mapping_space(op, host(), {});
  std::mt19937_64 rng(3);
  const Config c = plain->random_config(rng);
  const nlohmann::json f = {{"space", plain->version()}, {"knobs", plain->describe(c)}};
  const auto got = armed->config_from_record(f);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ((*got)[0], 0);
  EXPECT_EQ(armed->trace_json(*got), plain->trace_json(c));
  EXPECT_FALSE(armed->config_from_record({{"space", "vta-v1"}, {"knobs", plain->describe(c)}}).has_value());
}

// A history in which arm 1 is fast, arm 0 half as fast and arm 2 a hundredth: once each arm
// has been tried, the bandit spends most of the budget on arm 1 and almost none on arm 2.
TEST(ArmBandit, TriesEveryArmOnceThenFollowsTheResults) {
  const Op op = op_from_cli("gemm:M=64,N=64,K=64");
  const auto s = make_mapping_space(op, host(), {});
  ASSERT_EQ(s->knobs()[0].choices.size(), 3u);
  auto bandit = make_arm_bandit("evolutionary");
  EXPECT_EQ(bandit->name(), "evolutionary");
  std::mt19937_64 rng(9);

  std::vector<Trial> history;
  const double arm_time[] = {2e-4, 1e-4, 1e-2};
  auto play = [&](int n) {
    const auto got = bandit->propose(*s, history, n, rng);
    for (const auto& c : got) {
      EXPECT_TRUE(s->admissible(c));
      history.push_back(
          {c, Status::ok, arm_time[c[0]] * (1 + 0.01 * static_cast<double>(history.size() % 7)), nullptr});
    }
    return got;
  };
  std::set<int> opened;
  for (const auto& c : play(3)) opened.insert(c[0]);
  EXPECT_EQ(opened, (std::set<int>{0, 1, 2})) << "each arm is tried once before any twice";
  for (int round = 0; round < 3; ++round) play(4);
  std::map<int, int> tried;
  for (const auto& t : history) ++tried[t.config[0]];
  EXPECT_EQ(history.size(), 15u);
  EXPECT_GE(tried[1], 8);
  EXPECT_GT(tried[1], tried[0]);
  EXPECT_LE(tried[2], 2);
}

// Each mapping arm of a 64^3 GEMM has 14 schedules (5 x 3 register blocks less 6 x 3, which
// does not fit the registers): once both are spent the bandit proposes nothing.
TEST(ArmBandit, AnExhaustedArmGivesUpItsSlots) {
  const Op op = op_from_cli("gemm:M=64,N=64,K=64");
  MappingSpaceOptions only;
  only.with_nest = false;
  const auto s = make_mapping_space(op, host(), only);
  auto bandit = make_arm_bandit("random");
  std::mt19937_64 rng(2);
  std::vector<Trial> history;
  int empty = 0;
  for (int round = 0; round < 40 && empty < 3; ++round) {
    const auto got = bandit->propose(*s, history, 4, rng);
    empty = got.empty() ? empty + 1 : 0;
    for (const auto& c : got) history.push_back({c, Status::ok, c[0] == 0 ? 1e-4 : 1e-3, nullptr});
  }
  std::set<Config> distinct;
  std::map<int, int> tried;
  for (const auto& t : history) {
    distinct.insert(t.config);
    ++tried[t.config[0]];
  }
  EXPECT_EQ(distinct.size(), history.size()) << "a config proposed twice";
  EXPECT_EQ(tried[0], 14);
  EXPECT_EQ(tried[1], 14);
  EXPECT_EQ(empty, 3) << "both arms are spent";
}

TEST(ArmBandit, RefusesStrategiesThatRankOneSpace) {
  EXPECT_THROW(make_arm_bandit("ml2"), Error);
  EXPECT_THROW(make_arm_bandit("nonesuch"), Error);
}

// End to end: tune over mappings only; every attempt is a tensorized kernel built, run and
// checked against the reference, and the best replays from the database.
TEST(TuneMappings, EveryTensorizedCandidateIsVerified) {
  test::TempDir tmp;
  const std::string db_path = (tmp.path / "m.db").string();
  const Op op = op_from_cli("conv2d:N=1,H=6,W=6,C=4,K=12,R=3,S=3,stride=1,pad=1,layout=NHWC");
  TuneOptions o;
  o.db_path = db_path;
  o.trials = 16;
  o.strategy = "evolutionary";
  o.threads = 1;
  o.seed = 4;
  o.batch = 4;
  o.mappings = "only";
  o.max_mappings = 4;
  const TuneResult r = tune(op, o);
  EXPECT_EQ(r.trials_run, 16);
  EXPECT_EQ(r.valid, 16) << "a tensorized candidate failed its check";
  ASSERT_EQ(r.arms.size(), 4u);
  int trials = 0;
  for (const auto& a : r.arms) {
    EXPECT_GE(a.trials, 1) << a.name;
    trials += a.trials;
  }
  EXPECT_EQ(trials, 16);
  ASSERT_TRUE(r.best.has_value());
  EXPECT_NE(r.best->trace.find("\"tensorize\""), std::string::npos);
  const Database db = Database::open(db_path, OpenMode::read_only);
  for (const auto& rec : db.records(r.task_id)) EXPECT_EQ(rec.features.value("space", ""), "cpu-map-v3");

  o.mappings = "bogus";
  EXPECT_THROW(tune(op, o), Error);
  o.mappings = "on";
  o.strategy = "ml2";
  EXPECT_THROW(tune(op, o), Error);
  o.strategy = "evolutionary";
  o.target = "vta";  // the VTA knobs are its mapping
  EXPECT_THROW(tune(op_from_cli("gemm:M=16,N=16,K=16,dtype=i8"), o), Error);
}

}  // namespace
}  // namespace attune
