// Strategy "xgb": the TVM-like baseline (AutoTVM's XGBTuner).
//
// One XGBoost ranker on visible features, trained on every attempt with failures labelled 0
// (the practice ML²Tuner argues against: a failure is not a slow config), simulated annealing
// over its predictions, the top n proposed, a few (5%) replaced by random configs. No validity
// model, no compilation before choosing. Until the model has something to learn (a valid
// measurement and at least 8 attempts) it proposes random configs.
#include <set>

#include "search/annealing.hpp"
#include "search/model_inputs.hpp"
#include "search/strategies.hpp"

namespace attune {

namespace {

constexpr double kEpsilon = 0.05;
constexpr std::size_t kMinTrials = 8;

class XgbSearch final : public Strategy {
 public:
  std::string name() const override { return "xgb"; }

  std::vector<Config> propose(const Space& space, const std::vector<Trial>& history, int n,
                              std::mt19937_64& rng) override {
    std::set<Config> seen;
    std::vector<const Trial*> rows;
    bool any_valid = false;
    for (const auto& t : history) {
      if (seen.insert(t.config).second) rows.push_back(&t);
      any_valid |= t.status == Status::ok;
    }
    std::vector<Config> out;
    if (any_valid && rows.size() >= kMinTrials) {
      std::vector<Config> cs;
      for (const Trial* t : rows) cs.push_back(t->config);
      CostModel model(ModelKind::rank);
      model.fit(inputs_.visible_rows(space, cs), throughput_labels(rows));
      // Start walkers at the best measured configs, as AutoTVM does.
      std::vector<const Trial*> ok;
      for (const Trial* t : rows)
        if (t->status == Status::ok) ok.push_back(t);
      std::sort(ok.begin(), ok.end(), [](const Trial* a, const Trial* b) { return a->time_s < b->time_s; });
      std::vector<Config> starts;
      for (std::size_t i = 0; i < ok.size() && i < 16; ++i) starts.push_back(ok[i]->config);
      out = anneal(
          space, [&](const std::vector<Config>& c) { return model.predict(inputs_.visible_rows(space, c)); }, n, seen,
          starts, rng, anneal_options_for(space));
      std::uniform_real_distribution<double> u(0, 1);
      for (auto& c : out)
        if (u(rng) < kEpsilon) c = space.random_config(rng);
    }
    std::set<Config> taken(seen);
    std::vector<Config> unique;
    for (auto& c : out)
      if (taken.insert(c).second) unique.push_back(std::move(c));
    for (int tries = 0; static_cast<int>(unique.size()) < n && tries < n * 50; ++tries) {
      Config c = space.random_config(rng);
      if (taken.insert(c).second) unique.push_back(std::move(c));
    }
    return unique;
  }

 private:
  ModelInputs inputs_;
};

}  // namespace

std::unique_ptr<Strategy> make_xgb_search() { return std::make_unique<XgbSearch>(); }

}  // namespace attune
