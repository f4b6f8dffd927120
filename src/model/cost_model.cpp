// CostModel: the validity classifier and the rankers on XGBoost (see cost_model.hpp).
//
// Hyper-parameters follow AutoTVM's XGBoost tuner (max_depth 3, eta 0.3 for ranking), with a
// fixed number of rounds: training sets are a few hundred rows, retrained every round, so early
// stopping would cost more than it saves.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "ir/error.hpp"
#include "model/cost_model.hpp"

namespace attune {

namespace {

constexpr int kRankRounds = 60;
constexpr int kValidityRounds = 40;

std::vector<float> flatten(const FeatureRows& x, std::size_t cols) {
  std::vector<float> flat;
  flat.reserve(x.size() * cols);
  for (const auto& r : x) {
    if (r.size() != cols)
      throw Error("cost model: feature row has " + std::to_string(r.size()) + " values, expected " +
                  std::to_string(cols));
    flat.insert(flat.end(), r.begin(), r.end());
  }
  return flat;
}

}  // namespace

CostModel::CostModel(ModelKind kind) : kind_(kind) {}

void CostModel::fit(const FeatureRows& x, const std::vector<float>& y, const std::vector<unsigned>& groups,
                    const FitOptions& options) {
  if (x.empty()) throw Error("cost model: no training rows");
  if (x.size() != y.size())
    throw Error("cost model: " + std::to_string(x.size()) + " rows but " + std::to_string(y.size()) + " labels");
  const std::size_t cols = x.front().size();
  xgb::Matrix m(flatten(x, cols), x.size(), cols);
  m.set_labels(y);
  std::map<std::string, std::string> params;
  int rounds = 0;
  if (kind_ == ModelKind::validity) {
    params = {{"objective", "binary:logistic"},
              {"max_depth", "6"},
              {"eta", "0.3"},
              {"min_child_weight", "1"},
              {"base_score", "0.5"}};
    rounds = kValidityRounds;
  } else {
    if (groups.empty()) {
      m.set_groups({static_cast<unsigned>(x.size())});
    } else {
      if (std::accumulate(groups.begin(), groups.end(), std::size_t{0}) != x.size())
        throw Error("cost model: ranking groups cover " +
                    std::to_string(std::accumulate(groups.begin(), groups.end(), std::size_t{0})) + " rows of " +
                    std::to_string(x.size()));
      m.set_groups(groups);
    }
    params = {{"objective", "rank:pairwise"},
              {"max_depth", "3"},
              {"eta", "0.3"},
              {"min_child_weight", "1"},
              {"subsample", "1"}};
    rounds = kRankRounds;
  }
  if (options.rounds > 0) rounds = options.rounds;
  if (options.max_depth > 0) params["max_depth"] = std::to_string(options.max_depth);
  if (kind_ == ModelKind::rank && !options.objective.empty()) params["objective"] = options.objective;
  booster_ = xgb::Booster::train(m, params, rounds);
  columns_ = cols;
}

std::vector<float> CostModel::predict(const FeatureRows& x) const {
  if (!booster_) throw Error("cost model: predict before training");
  if (x.empty()) return {};
  xgb::Matrix m(flatten(x, columns_), x.size(), columns_);
  return booster_->predict(m);
}

std::string CostModel::save() const {
  if (!booster_) throw Error("cost model: save before training");
  // The column count travels with the trees so a loaded model checks its input the same way.
  return std::to_string(columns_) + "\n" + booster_->save();
}

CostModel CostModel::load(ModelKind kind, const std::string& bytes) {
  const auto nl = bytes.find('\n');
  if (nl == std::string::npos || nl == 0 || nl > 12) throw Error("cost model: saved model has no column count");
  CostModel m(kind);
  try {
    m.columns_ = std::stoul(bytes.substr(0, nl));
  } catch (const std::exception&) {
    throw Error("cost model: saved model has no column count");
  }
  m.booster_ = xgb::Booster::load(bytes.substr(nl + 1));
  return m;
}

std::vector<float> relative_throughput(const std::vector<double>& times) {
  double best = 0;
  for (double t : times)
    if (t > 0 && (best == 0 || t < best)) best = t;
  std::vector<float> y;
  for (double t : times) y.push_back(t > 0 ? static_cast<float>(best / t) : 0.f);
  return y;
}

double pairwise_accuracy(const std::vector<float>& scores, const std::vector<double>& times, double min_ratio,
                         int* pairs_counted) {
  if (scores.size() != times.size()) throw Error("pairwise_accuracy: sizes differ");
  double right = 0, pairs = 0;
  for (std::size_t i = 0; i < times.size(); ++i)
    for (std::size_t j = i + 1; j < times.size(); ++j) {
      if (times[i] == times[j]) continue;
      if (std::max(times[i], times[j]) < min_ratio * std::min(times[i], times[j])) continue;
      pairs += 1;
      const bool i_faster = times[i] < times[j];
      if (scores[i] == scores[j])
        right += 0.5;
      else if ((scores[i] > scores[j]) == i_faster)
        right += 1;
    }
  if (pairs_counted) *pairs_counted = static_cast<int>(pairs);
  return pairs > 0 ? right / pairs : std::nan("");
}

double peak_at_k(const std::vector<float>& scores, const std::vector<double>& times, int k) {
  if (scores.size() != times.size()) throw Error("peak_at_k: sizes differ");
  if (times.empty() || k <= 0) return std::nan("");
  std::vector<std::size_t> idx(times.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  const double best = *std::min_element(times.begin(), times.end());
  double best_topk = times[idx[0]];
  for (int i = 1; i < k && i < static_cast<int>(idx.size()); ++i) best_topk = std::min(best_topk, times[idx[i]]);
  return best / best_topk;
}

ClassifierQuality classifier_quality(const std::vector<float>& p_valid, const std::vector<bool>& valid) {
  if (p_valid.size() != valid.size()) throw Error("classifier_quality: sizes differ");
  int tp = 0, fp = 0, fn = 0, right = 0;
  for (std::size_t i = 0; i < valid.size(); ++i) {
    const bool pred_invalid = p_valid[i] < 0.5f;
    const bool invalid = !valid[i];
    if (pred_invalid && invalid) ++tp;
    if (pred_invalid && !invalid) ++fp;
    if (!pred_invalid && invalid) ++fn;
    if (pred_invalid == invalid) ++right;
  }
  ClassifierQuality q;
  q.n = static_cast<int>(valid.size());
  q.precision = tp + fp > 0 ? static_cast<double>(tp) / (tp + fp) : std::nan("");
  q.recall = tp + fn > 0 ? static_cast<double>(tp) / (tp + fn) : std::nan("");
  q.accuracy = q.n > 0 ? static_cast<double>(right) / q.n : std::nan("");
  return q;
}

}  // namespace attune
