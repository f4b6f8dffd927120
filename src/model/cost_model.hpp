// model/cost_model.hpp — ML²Tuner's three models and the measures of their quality.
//
//   V  CostModel(ModelKind::validity)  binary:logistic on visible features; label 1 = the
//      attempt was valid (ok), 0 = anything else. Trained on every attempt.
//   P  CostModel(ModelKind::rank)      rank:pairwise on visible features.
//   A  CostModel(ModelKind::rank)      rank:pairwise on visible + hidden features.
// P and A learn from valid measurements only; their label is relative throughput
// (best time / time, in (0, 1]), so one task's rows form one ranking group. The TVM-like
// baseline ("xgb") uses a rank model too, but feeds failures as label 0.
//
// A model is XGBoost trees (model/xgboost.hpp) and saves to bytes for the database's models
// table. Row vectors may hold NaN for missing values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/xgboost.hpp"

namespace attune {

enum class ModelKind { validity, rank };

using FeatureRows = std::vector<std::vector<float>>;

// CostModel::fit's overrides of the kind's boosting rounds and tree depth (0: the default).
struct FitOptions {
  int rounds = 0;
  int max_depth = 0;
  std::string objective;  // rank only: "" (rank:pairwise) or another XGBoost ranking objective
};

class CostModel {
 public:
  explicit CostModel(ModelKind kind);
  ModelKind kind() const { return kind_; }
  // Trains from scratch on `x` (rows of equal length) with labels `y`. validity: 0/1;
  // rank: larger is better. `groups` (rank only): the sizes of consecutive blocks of rows that
  // are ranked among themselves (one per task when rows come from many tasks); empty: all rows
  // form one group. Throws Error on ragged rows, a size mismatch or groups that do not sum to
  // the row count. `options` overrides the kind's boosting rounds and tree depth (0: default).
  void fit(const FeatureRows& x, const std::vector<float>& y, const std::vector<unsigned>& groups = {},
           const FitOptions& options = {});
  bool trained() const { return booster_.has_value(); }
  std::size_t columns() const { return columns_; }
  // validity: P(valid) per row; rank: a score per row (larger is better). Throws when untrained
  // or when a row's length differs from the training rows'.
  std::vector<float> predict(const FeatureRows& x) const;
  // Bytes for Database::save_model; load() gives a model that predicts identically.
  std::string save() const;
  static CostModel load(ModelKind kind, const std::string& bytes);

 private:
  ModelKind kind_;
  std::size_t columns_ = 0;
  std::optional<xgb::Booster> booster_;
};

// The rankers' label: best time / time, in (0, 1] (larger is better); 0 where time <= 0 (a
// failure, for the strategies that label failures at all).
std::vector<float> relative_throughput(const std::vector<double>& times);

// ---- quality measures (TenSet's definitions) ----------------------------------------------------

// Share of pairs with different true times that the scores order correctly (higher score =
// faster). 0.5 for a constant scorer; NaN when there are no such pairs. With `min_ratio` > 1,
// only pairs whose slower time is at least that many times the faster count (the rest are
// within timing noise: no model can be judged on them); `pairs`, when given, receives how many
// pairs counted.
double pairwise_accuracy(const std::vector<float>& scores, const std::vector<double>& times, double min_ratio = 1.0,
                         int* pairs = nullptr);
// Best true time over the best true time among the k highest-scored rows: 1 = the model's
// top-k contains the optimum.
double peak_at_k(const std::vector<float>& scores, const std::vector<double>& times, int k);

struct ClassifierQuality {
  double precision = 0, recall = 0;  // of the "invalid" class (what V exists to catch)
  double accuracy = 0;
  int n = 0;
};
// `p_valid` from a validity model, `valid` the truth; predicted invalid when p_valid < 0.5.
ClassifierQuality classifier_quality(const std::vector<float>& p_valid, const std::vector<bool>& valid);

}  // namespace attune
