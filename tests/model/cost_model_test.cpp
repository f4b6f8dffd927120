// The cost models on XGBoost: they learn what is learnable from random data, round-trip through
// bytes, refuse malformed input with a message, and the quality measures match hand counts.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/error.hpp"
#include "model/cost_model.hpp"

namespace attune {
namespace {

// Rows of d uniform features in [0, 1).
FeatureRows random_rows(std::mt19937_64& rng, int n, int d) {
  std::uniform_real_distribution<float> u(0, 1);
  FeatureRows x(n, std::vector<float>(d));
  for (auto& r : x)
    for (auto& v : r) v = u(rng);
  return x;
}

TEST(CostModel, ValidityClassifierLearnsABoundaryItHasNotSeenEveryPointOf) {
  std::mt19937_64 rng(1);
  auto valid = [](const std::vector<float>& r) { return r[0] + r[1] < 1.0f; };
  const FeatureRows train = random_rows(rng, 400, 4), test = random_rows(rng, 200, 4);
  std::vector<float> y;
  for (const auto& r : train) y.push_back(valid(r) ? 1.f : 0.f);
  CostModel v(ModelKind::validity);
  EXPECT_FALSE(v.trained());
  v.fit(train, y);
  ASSERT_TRUE(v.trained());
  const auto p = v.predict(test);
  std::vector<bool> truth;
  for (const auto& r : test) truth.push_back(valid(r));
  for (float x : p) EXPECT_TRUE(x >= 0 && x <= 1) << "a probability";
  const auto q = classifier_quality(p, truth);
  EXPECT_GT(q.accuracy, 0.85);
  EXPECT_GT(q.precision, 0.8);
  EXPECT_GT(q.recall, 0.8);
}

TEST(CostModel, RankerOrdersUnseenRowsByTheHiddenFunction) {
  std::mt19937_64 rng(2);
  auto time_of = [](const std::vector<float>& r) { return 1.0 + 3 * r[0] + std::sin(4 * r[1]) + 0.2 * r[2]; };
  const FeatureRows train = random_rows(rng, 300, 3), test = random_rows(rng, 100, 3);
  std::vector<const std::vector<float>*> dummy;
  double best = 1e9;
  for (const auto& r : train) best = std::min(best, time_of(r));
  std::vector<float> y;
  for (const auto& r : train) y.push_back(static_cast<float>(best / time_of(r)));
  CostModel p(ModelKind::rank);
  p.fit(train, y);
  std::vector<double> times;
  for (const auto& r : test) times.push_back(time_of(r));
  const auto s = p.predict(test);
  EXPECT_GT(pairwise_accuracy(s, times), 0.85);
  EXPECT_GT(peak_at_k(s, times, 5), 0.8);
}

TEST(CostModel, MissingValuesAreAccepted) {
  std::mt19937_64 rng(3);
  FeatureRows x = random_rows(rng, 50, 3);
  std::vector<float> y;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (i % 3 == 0) x[i][1] = std::numeric_limits<float>::quiet_NaN();
    y.push_back(x[i][0] > 0.5f ? 1.f : 0.f);
  }
  CostModel v(ModelKind::validity);
  v.fit(x, y);
  EXPECT_EQ(v.predict(x).size(), x.size());
}

TEST(CostModel, SaveAndLoadPredictIdentically) {
  std::mt19937_64 rng(4);
  const FeatureRows x = random_rows(rng, 80, 5);
  std::vector<float> y;
  for (const auto& r : x) y.push_back(r[0] * r[3]);
  for (ModelKind kind : {ModelKind::rank, ModelKind::validity}) {
    std::vector<float> yy = y;
    if (kind == ModelKind::validity)
      for (auto& v : yy) v = v > 0.25f ? 1.f : 0.f;
    CostModel m(kind);
    m.fit(x, yy);
    const CostModel back = CostModel::load(kind, m.save());
    EXPECT_EQ(back.columns(), 5u);
    EXPECT_EQ(back.predict(x), m.predict(x));
  }
}

TEST(CostModel, MalformedInputIsRefusedWithAMessage) {
  CostModel m(ModelKind::rank);
  EXPECT_THROW(m.predict({{1.f}}), Error);
  EXPECT_THROW(m.fit({}, {}), Error);
  EXPECT_THROW(m.fit({{1.f, 2.f}, {1.f}}, {1.f, 0.f}), Error);
  EXPECT_THROW(m.fit({{1.f}, {2.f}}, {1.f}), Error);
  m.fit({{1.f, 0.f}, {2.f, 1.f}, {3.f, 0.f}}, {0.2f, 0.5f, 1.f});
  try {
    m.predict({{1.f, 2.f, 3.f}});
    FAIL() << "a row of the wrong width was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has 3 values, expected 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(CostModel::load(ModelKind::rank, "not a model"), Error);
  EXPECT_THROW(CostModel::load(ModelKind::rank, "3\ngarbage bytes"), Error);
}

TEST(ModelQuality, PairwiseAccuracyCountsOrderedPairs) {
  // times 1 < 2 < 3; scores order (1,2) right, (1,3) right, (2,3) wrong.
  EXPECT_NEAR(pairwise_accuracy({3.f, 1.f, 2.f}, {1.0, 2.0, 3.0}), 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(pairwise_accuracy({0.f, 0.f}, {1.0, 2.0}), 0.5, 1e-12);  // a tie is half right
  EXPECT_TRUE(std::isnan(pairwise_accuracy({1.f, 2.f}, {1.0, 1.0})));  // no pair to order
  // With a margin only clearly different times count: 1.0 vs 1.05 is noise, 1.0 vs 2.0 is not.
  EXPECT_NEAR(pairwise_accuracy({1.f, 2.f, 3.f}, {1.0, 1.05, 2.0}, 1.25), 0.0, 1e-12);
  EXPECT_TRUE(std::isnan(pairwise_accuracy({2.f, 1.f}, {1.0, 1.05}, 1.25)));
}

TEST(ModelQuality, PeakAtKIsBestTimeOverBestTimeInTopK) {
  const std::vector<double> times = {4.0, 1.0, 2.0, 8.0};
  const std::vector<float> scores = {0.9f, 0.1f, 0.5f, 0.8f};  // ranking: 4.0, 8.0, 2.0, 1.0
  EXPECT_NEAR(peak_at_k(scores, times, 1), 1.0 / 4.0, 1e-12);
  EXPECT_NEAR(peak_at_k(scores, times, 3), 1.0 / 2.0, 1e-12);
  EXPECT_NEAR(peak_at_k(scores, times, 4), 1.0, 1e-12);
}

TEST(ModelQuality, ClassifierQualityIsAboutTheInvalidClass) {
  // truth:   valid, invalid, invalid, valid
  // predict: valid, invalid, valid,   invalid
  const auto q = classifier_quality({0.9f, 0.1f, 0.7f, 0.2f}, {true, false, false, true});
  EXPECT_NEAR(q.precision, 0.5, 1e-12);  // 1 of 2 predicted-invalid is invalid
  EXPECT_NEAR(q.recall, 0.5, 1e-12);     // 1 of 2 invalid caught
  EXPECT_NEAR(q.accuracy, 0.5, 1e-12);
  EXPECT_EQ(q.n, 4);
}

}  // namespace
}  // namespace attune
