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
    return cached(visible_, c, [&] { return space.visible_features(c); });
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
    return cached(transfer_, c, [&] { return space.transfer_features(c); });
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
  using Cache = std::map<Config, std::vector<float>>;
  template <typename Compute>
  static const std::vector<float>& cached(Cache& cache, const Config& c, Compute compute) {
    auto it = cache.find(c);
    if (it == cache.end()) it = cache.emplace(c, compute()).first;
    return it->second;
  }

  Cache visible_, transfer_;
};

// The rankers' labels for `trials` (relative_throughput; failures 0).
inline std::vector<float> throughput_labels(const std::vector<const Trial*>& trials) {
  std::vector<double> times;
  for (const Trial* t : trials) times.push_back(t->status == Status::ok ? t->time_s : 0);
  return relative_throughput(times);
}

}  // namespace attune
