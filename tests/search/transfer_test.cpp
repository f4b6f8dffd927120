// Learning across tasks through the real tuning loop: ops of different families describe their
// configs in the same transfer columns, every record carries them, zero-shot refuses to guess
// without data, and with records of other ops it returns one kernel, checked and timed once.
#include <gtest/gtest.h>

#include <random>

#include "db/db.hpp"
#include "ir/error.hpp"
#include "model/features.hpp"
#include "model/transfer_model.hpp"
#include "search/tuner.hpp"
#include "temp_dir.hpp"

namespace attune {
namespace {

using test::TempDir;

TuneResult tune_into(const std::string& db, const std::string& spec, const std::string& strategy, int trials) {
  TuneOptions o;
  o.db_path = db;
  o.trials = trials;
  o.strategy = strategy;
  o.seed = 3;
  o.threads = 1;
  o.batch = 4;
  o.confirm_top = 0;
  return tune(op_from_cli(spec), o);
}

TEST(Transfer, OpsOfDifferentFamiliesShareTheTransferColumns) {
  std::mt19937_64 rng(5);
  const auto gemm = make_cpu_space(op_from_cli("gemm:M=24,N=32,K=20"), 2);
  const auto conv = make_cpu_space(op_from_cli("conv2d:N=1,H=8,W=8,C=16,K=16,R=3,S=3,stride=1,pad=1"), 2);
  ASSERT_NE(gemm->knobs().size(), conv->knobs().size()) << "their own knobs differ ...";
  for (int i = 0; i < 5; ++i) {
    const auto g = gemm->transfer_features(gemm->random_config(rng));
    const auto c = conv->transfer_features(conv->random_config(rng));
    EXPECT_EQ(g.size(), c.size()) << "... their transfer features do not";
    EXPECT_EQ(g.size(), nest_feature_names().size() + 2);
    EXPECT_FLOAT_EQ(g[g.size() - 2], 1.f) << "log2 of the 2 threads";
    EXPECT_GT(g.back(), 0.f) << "the busy share of the threads";
    EXPECT_LE(g.back(), 1.f);
  }
}

TEST(Transfer, ZeroShotWithoutRecordsOfTheTargetSaysWhatItNeeds) {
  TempDir dir;
  try {
    tune_into((dir.path / "empty.db").string(), "gemm:M=24,N=32,K=20", "predict", 0);
    FAIL() << "zero-shot guessed without data";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tune a few ops of this target first"), std::string::npos) << e.what();
  }
}

TEST(Transfer, ZeroShotMeasuresOnePickOfAnOpItNeverSaw) {
  TempDir dir;
  const std::string db = (dir.path / "t.db").string();
  for (const char* spec : {"gemm:M=24,N=32,K=20", "gemm:M=32,N=48,K=16"}) {
    const TuneResult r = tune_into(db, spec, "ml2", 16);
    EXPECT_GT(r.valid, 8) << spec;
  }
  {
    const Database d = Database::open(db, OpenMode::read_only);
    for (const auto& t : d.tasks())
      for (const auto& rec : d.records(t.id))
        EXPECT_TRUE(rec.features.contains(kTransferFeature)) << "every record carries its transfer features";
  }
  const TuneResult r = tune_into(db, "gemm:M=40,N=32,K=24", "predict", 0);
  ASSERT_GE(r.record_ids.size(), 1u);
  EXPECT_LE(r.measured, 4) << "one pick (and another only for each one that failed)";
  EXPECT_EQ(r.confirmations, 0) << "zero-shot times its pick and nothing else";
  ASSERT_TRUE(r.best.has_value());
  EXPECT_EQ(r.best->strategy, "predict");
  EXPECT_EQ(r.best->id, r.record_ids.back());
  EXPECT_LE(r.best->max_rel_error, 1e-4) << "checked against the reference";
}

}  // namespace
}  // namespace attune
