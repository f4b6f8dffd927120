// The engine's Proposer for knob strategies (engine.hpp): a Space and a Strategy
// (random, evolutionary, xgb, ml2, or the mapping bandit over them).
//
// The space's seed configs go first (those not already in the history of a resumed task),
// then the strategy proposes from the history, which starts as the task's records that this
// space can read back (Space::config_from_record) and grows with every attempt of this run.
#include <algorithm>

#include "ir/error.hpp"
#include "model/transfer_model.hpp"
#include "search/engine.hpp"

namespace attune::engine {

namespace {

std::vector<Trial> load_history(const Database& db, std::int64_t task, const Space& space) {
  std::vector<Trial> h;
  for (const auto& r : db.records(task)) {
    const auto cfg = space.config_from_record(r.features);
    if (!cfg) continue;
    Trial t;
    t.config = *cfg;
    t.status = r.status;
    t.time_s = r.ok() ? r.median_s : 0;
    if (r.hidden_features.is_object()) t.hidden = r.hidden_features;
    h.push_back(std::move(t));
  }
  return h;
}

Config config_of(const Candidate& c) { return c.features.at("config").get<Config>(); }

class SpaceProposer : public Proposer {
 public:
  SpaceProposer(std::unique_ptr<Space> space, std::unique_ptr<Strategy> strategy, Database& db, const TaskInfo& task,
                const std::string& target_name)
      : space_(std::move(space)), strategy_(std::move(strategy)), ctx_{&db, target_name} {
    history_ = load_history(db, task.id, *space_);
    ctx_.space = space_.get();
    strategy_->begin(ctx_);
    // Zero-shot puts the seeds among its own candidates instead of measuring them first.
    if (!strategy_->measures_seeds_first()) return;
    std::set<Config> tried;
    for (const Trial& t : history_) tried.insert(t.config);
    seeds_ = space_->untried_seeds(tried);
    strategy_->order_seeds(*space_, seeds_);
    std::reverse(seeds_.begin(), seeds_.end());  // taken from the back
  }

  std::string strategy() const override { return strategy_->name(); }

  std::vector<Candidate> propose(int n, const std::set<std::string>& known, std::mt19937_64& rng) override {
    // Seeds fill the measured part of a round; a two-level strategy's surplus is its own.
    std::vector<Config> configs;
    while (!seeds_.empty() && static_cast<int>(configs.size()) < n / factor()) {
      configs.push_back(seeds_.back());
      seeds_in_flight_.insert(seeds_.back());
      seeds_.pop_back();
    }
    if (static_cast<int>(configs.size()) < n)
      for (auto& c : strategy_->propose(*space_, history_, n - static_cast<int>(configs.size()), rng))
        if (std::find(configs.begin(), configs.end(), c) == configs.end()) configs.push_back(std::move(c));

    std::vector<Candidate> out;
    std::set<std::string> fresh;
    for (const auto& cfg : configs) {
      Candidate c;
      try {
        c.trace_text = space_->trace_json(cfg);
      } catch (const Error& e) {
        c.trace_text = nlohmann::json::array({{{"unexpressible", space_->describe(cfg)}}}).dump();
        c.refused = e.what();
      }
      c.trace_hash = content_hash(c.trace_text);
      if (known.count(c.trace_hash) || !fresh.insert(c.trace_hash).second) {
        // Measured before: the strategy sees it (so it moves on), nobody measures it again.
        history_.push_back({cfg, Status::invalid, 0, nullptr});
        continue;
      }
      c.features = {{"space", space_->version()},
                    {"config", cfg},
                    {"knobs", space_->describe(cfg)},
                    {"visible", space_->visible_features(cfg)}};
      if (auto transfer = space_->transfer_features(cfg); !transfer.empty())
        c.features[kTransferFeature] = std::move(transfer);
      out.push_back(std::move(c));
    }
    return out;
  }

  int factor() const override { return std::max(1, strategy_->proposal_factor(*space_)); }

  // Seeds that compiled are measured whatever the strategy's models think of them (they are
  // the prior a model of other tasks must not talk the run out of); the strategy picks the
  // rest of the round from its own proposals.
  std::vector<std::size_t> select(const std::vector<const Candidate*>& cands, const std::vector<const Built*>& built,
                                  int n) override {
    std::vector<std::size_t> chosen, others;
    std::vector<CompiledCandidate> offered;
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const Config cfg = config_of(*cands[i]);
      if (seeds_in_flight_.erase(cfg) > 0 && static_cast<int>(chosen.size()) < n) {
        chosen.push_back(i);
        continue;
      }
      others.push_back(i);
      offered.push_back({cfg, built[i]->hidden});
    }
    seeds_in_flight_.clear();  // those that failed to compile are recorded already
    for (std::size_t k : strategy_->select(*space_, offered, n - static_cast<int>(chosen.size())))
      chosen.push_back(others.at(k));
    return chosen;
  }

  void observe(const Candidate& c, const Measurement& m, const nlohmann::json& hidden) override {
    history_.push_back({config_of(c), m.status, m.ok() ? m.median_s : 0, hidden});
  }

  void finish() override { strategy_->end(ctx_); }

  nlohmann::json predictions(const Candidate& c) const override { return strategy_->predictions(config_of(c)); }

  // Per arm of an armed space: attempts, valid ones and the best speed in the history.
  std::vector<ArmResult> arms(const Op& op) const override {
    std::vector<ArmResult> out;
    const int ak = space_->arm_knob();
    if (ak < 0) return out;
    for (std::size_t a = 0; a < space_->knobs()[static_cast<std::size_t>(ak)].choices.size(); ++a)
      out.push_back({space_->arm_name(static_cast<int>(a))});
    for (const auto& t : history_) {
      ArmResult& r = out.at(static_cast<std::size_t>(t.config.at(static_cast<std::size_t>(ak))));
      ++r.trials;
      if (t.status != Status::ok) continue;
      ++r.valid;
      r.best_gflops = std::max(r.best_gflops, gflops_of(op, t.time_s));
    }
    return out;
  }

 private:
  std::unique_ptr<Space> space_;
  std::unique_ptr<Strategy> strategy_;
  StrategyContext ctx_;
  std::vector<Trial> history_;
  std::vector<Config> seeds_;
  std::set<Config> seeds_in_flight_;  // proposed this round, not yet selected
};

}  // namespace

std::unique_ptr<Proposer> make_space_proposer(std::unique_ptr<Space> space, std::unique_ptr<Strategy> strategy,
                                              Database& db, const TaskInfo& task, const std::string& target_name) {
  return std::make_unique<SpaceProposer>(std::move(space), std::move(strategy), db, task, target_name);
}

}  // namespace attune::engine
