// search/model_inputs.hpp — feature rows for the model-based strategies (xgb, ml2), cached per
// config (computing a CPU config's visible features replays its trace).
#pragma once

#include <map>

#include "model/cost_model.hpp"
#include "model/features.hpp"
#include "search/tuner.hpp"

namespace attune {

class ModelInputs {
 public:
  const std::vector<float>& visible(const Space& space, const Config& c) {
    auto it = visible_.find(c);
    if (it == visible_.end()) it = visible_.emplace(c, space.visible_features(c)).first;
    return it->second;
  }
  FeatureRows visible_rows(const Space& space, const std::vector<Config>& cs) {
    FeatureRows rows;
    for (const auto& c : cs) rows.push_back(visible(space, c));
    return rows;
  }
  // Visible then hidden features (A's input).
  std::vector<float> combined(const Space& space, const Config& c, const nlohmann::json& hidden) {
    return with_hidden(visible(space, c), hidden, space.hidden_kind());
  }

  // The same for the cross-task models (Space::transfer_features).
  const std::vector<float>& transfer(const Space& space, const Config& c) {
    auto it = transfer_.find(c);
    if (it == transfer_.end()) it = transfer_.emplace(c, space.transfer_features(c)).first;
    return it->second;
  }
  FeatureRows transfer_rows(const Space& space, const std::vector<Config>& cs) {
    FeatureRows rows;
    for (const auto& c : cs) rows.push_back(transfer(space, c));
    return rows;
  }
  std::vector<float> transfer_combined(const Space& space, const Config& c, const nlohmann::json& hidden) {
    return with_hidden(transfer(space, c), hidden, space.hidden_kind());
  }

 private:
  std::map<Config, std::vector<float>> visible_, transfer_;
};

// The rankers' labels for `trials` (relative_throughput; failures 0).
inline std::vector<float> throughput_labels(const std::vector<const Trial*>& trials) {
  std::vector<double> times;
  for (const Trial* t : trials) times.push_back(t->status == Status::ok ? t->time_s : 0);
  return relative_throughput(times);
}

}  // namespace attune
