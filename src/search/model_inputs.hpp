// search/model_inputs.hpp — feature rows for the model-based strategies (xgb, ml2), cached per
// config (computing a CPU config's visible features replays its trace).
#pragma once

#include <map>

#include "attune/cost_model.hpp"
#include "attune/features.hpp"
#include "attune/tuner.hpp"

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
    std::vector<float> row = visible(space, c);
    const auto h = hidden_vector(hidden, space.hidden_kind());
    row.insert(row.end(), h.begin(), h.end());
    return row;
  }

 private:
  std::map<Config, std::vector<float>> visible_;
};

// Relative throughput labels for the rankers: best time / time in (0, 1]; 0 for failures.
inline std::vector<float> throughput_labels(const std::vector<const Trial*>& trials) {
  double best = 0;
  for (const Trial* t : trials)
    if (t->status == Status::ok && t->time_s > 0 && (best == 0 || t->time_s < best)) best = t->time_s;
  std::vector<float> y;
  for (const Trial* t : trials)
    y.push_back(t->status == Status::ok && t->time_s > 0 ? static_cast<float>(best / t->time_s) : 0.f);
  return y;
}

}  // namespace attune
