// The network pick (network/network_pick.hpp): a runner with alternatives runs each of a task's
// fastest kernels correctly, a stored pick replaces the tuned best only while that is still
// the record it beat, and pick_in_network stores what it reports.
#include <gtest/gtest.h>

#include <algorithm>

#include "db/db.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "network/gemm_relu_net.hpp"
#include "network/model_runner.hpp"
#include "network/network_pick.hpp"
#include "search/tuner.hpp"

namespace attune::network {
namespace {

// Tuned a little at one thread: a few verified kernels for its task.
struct TunedGemmRelu : test::GemmReluNet {
  TunedGemmRelu() : GemmReluNet("pick", 6, 20, 40, 11) {
    for (const auto& task : plan.tasks) {
      TuneOptions o;
      o.db_path = db;
      o.trials = 6;
      o.threads = 1;
      o.seed = 3;
      tune(parse_spec(task.spec), o);
    }
  }
};

ModelRunOptions at_one_thread(const std::string& db, int alternatives = 1) {
  ModelRunOptions o;
  o.db_path = db;
  o.threads = 1;
  o.alternatives = alternatives;
  return o;
}

TEST(NetworkPick, EveryAlternativeComputesTheModel) {
  const TunedGemmRelu t;
  ModelRunner runner(t.plan, at_one_thread(t.db, 3));
  bool several = false;
  for (int task = 0; task < static_cast<int>(t.plan.tasks.size()); ++task) {
    const auto& alts = runner.alternatives(task);
    ASSERT_FALSE(alts.empty());
    EXPECT_LE(alts.size(), 3u);
    several |= alts.size() > 1;
    std::vector<std::int64_t> records;
    for (const auto& a : alts) records.push_back(a.record);
    std::sort(records.begin(), records.end());
    EXPECT_EQ(std::unique(records.begin(), records.end()), records.end()) << "one record twice";
    for (int k = 0; k < static_cast<int>(alts.size()); ++k) {
      runner.choose(task, k);
      EXPECT_EQ(runner.kernels()[task].record, alts[k].record);
      t.expect_right(runner.run(t.inputs()));
    }
    EXPECT_THROW(runner.choose(task, static_cast<int>(alts.size())), InternalError);
  }
  EXPECT_TRUE(several) << "tuning left one verified kernel per task";
}

TEST(NetworkPick, AStoredPickRunsWhileTheBestItBeatIsStillTheBest) {
  const TunedGemmRelu t;
  const ModelRunner probe(t.plan, at_one_thread(t.db, 2));
  const auto& alts = probe.alternatives(0);
  ASSERT_EQ(alts.size(), 2u);
  const std::string spec = canonical_spec(parse_spec(t.plan.tasks[0].spec));
  const std::string target = tuning_target_name("cpu");
  auto store = [&](std::int64_t over) {
    nlohmann::json blob = {{"tasks", {{spec, {{"record", alts[1].record}, {"over", over}}}}}};
    Database::open(t.db, OpenMode::read_write_create).save_model(target, "network-pick/1", blob.dump());
  };

  store(alts[0].record);
  EXPECT_EQ(load_network_picks(Database::open(t.db, OpenMode::read_only), target, 1).at(spec).record, alts[1].record);
  {
    ModelRunner runner(t.plan, at_one_thread(t.db));
    EXPECT_EQ(runner.kernels()[0].record, alts[1].record);
    EXPECT_TRUE(runner.kernels()[0].picked);
    t.expect_right(runner.run(t.inputs()));
  }
  // Picked over a record that is no longer the tuned best (tuning found a faster one): stale.
  store(alts[0].record + 100000);
  {
    const ModelRunner runner(t.plan, at_one_thread(t.db));
    EXPECT_EQ(runner.kernels()[0].record, alts[0].record);
    EXPECT_FALSE(runner.kernels()[0].picked);
  }
  // Picks for another thread count are not this one's.
  EXPECT_TRUE(load_network_picks(Database::open(t.db, OpenMode::read_only), target, 2).empty());
}

TEST(NetworkPick, StoresWhatItReports) {
  const TunedGemmRelu t;
  NetworkPickOptions o;
  o.db_path = t.db;
  o.threads = 1;
  o.alternatives = 3;
  o.rounds = 3;
  const NetworkPickResult r = pick_in_network(t.plan, o);
  EXPECT_TRUE(r.skipped.empty()) << r.skipped;
  ASSERT_EQ(r.tasks.size(), t.plan.tasks.size());
  EXPECT_GT(r.before_s, 0);
  EXPECT_LE(r.after_s, r.before_s);
  const auto picks = load_network_picks(Database::open(t.db, OpenMode::read_only), tuning_target_name("cpu"), 1);
  EXPECT_EQ(static_cast<int>(picks.size()), r.changed);
  const ModelRunner runner(t.plan, at_one_thread(t.db));
  int picked = 0;
  for (std::size_t task = 0; task < r.tasks.size(); ++task) {
    EXPECT_EQ(runner.kernels()[task].picked, r.tasks[task].changed) << task;
    picked += runner.kernels()[task].picked;
    if (r.tasks[task].changed) {
      EXPECT_LT(r.tasks[task].picked_s, r.tasks[task].best_s);
    }
  }
  EXPECT_EQ(picked, r.changed);
}

}  // namespace
}  // namespace attune::network
