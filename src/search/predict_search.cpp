// Strategy "predict": zero-shot tuning. A task the database has never measured gets the config
// the target's cross-task models (model/transfer_model.hpp) rank first, compiled, checked
// against the reference and timed once: no search at all.
//
// The pool is the space's seed configs when it has at least kMinPool of them (the register
// tiles and cache-blocked panels its code generator is known to run well), else an annealing
// walk over P's scores plus random configs: a model trained on a few op families ranks well
// inside the seeds but picks badly far from them (for gemm_512, trained on convolutions and
// batched matmuls only, P's favourite of an open pool took 77 ms where the seeds' best took
// 1.4). P ranks the pool and V moves what it predicts invalid to the back. Then the model's
// pick rule (choose_pick_rule, judged on the database's own families) decides: P's first
// alone, or A (after compiling, with the hidden features: the spills and the instruction mix,
// which P cannot see before compiling) choosing among P's first k, all k compiled. Only the
// pick is timed. Should that one fail, the next proposal is the next of P's ranking; after
// kMaxFailures the run ends without a kernel. Once one is valid, nothing more is proposed.
#include <algorithm>
#include <iterator>
#include <numeric>
#include <optional>
#include <set>

#include "ir/error.hpp"
#include "model/transfer_model.hpp"
#include "search/annealing.hpp"
#include "search/model_inputs.hpp"
#include "search/strategies.hpp"

namespace attune {

namespace {

constexpr int kPool = 512;         // P's candidates: annealed and random, half each
constexpr int kMinPool = 3;        // seeds needed to skip the open pool
constexpr int kCompiled = *std::max_element(std::begin(kPickRules), std::end(kPickRules));  // the most per pick
constexpr int kMaxFailures = 4;    // picks that fail before the run gives up
constexpr float kValidCut = 0.5f;  // V's P(valid) below which a config is not picked

class PredictSearch final : public Strategy {
 public:
  std::string name() const override { return "predict"; }
  int proposal_factor(const Space&) const override { return kCompiled; }
  bool measures_seeds_first() const override { return false; }

  void begin(const StrategyContext& ctx) override {
    if (!ctx.db || !ctx.space) throw Error("strategy predict needs a database to learn from");
    if (ctx.space->transfer_features(ctx.space->random_config(rng_)).empty())
      throw Error("strategy predict: this op's schedule space has no cross-task features (multi-stage ops and the "
                  "mapping space do not); use --strategy ml2");
    model_ = current_transfer_model(*ctx.db, ctx.target, ctx.space->hidden_kind(), /*with_pick_rule=*/true);
    if (!model_ || !model_->p)
      throw Error("zero-shot needs a model of other tasks, and the database has too few valid records of target " +
                  ctx.target + " with cross-task features: tune a few ops of this target first (any strategy)");
  }

  std::vector<Config> propose(const Space& space, const std::vector<Trial>& history, int n,
                              std::mt19937_64& rng) override {
    // Only this run's attempts decide whether the pick is done (a resumed task has others).
    if (!first_) first_ = history.size();
    int failures = 0;
    std::set<Config> seen;
    for (std::size_t i = 0; i < history.size(); ++i) {
      seen.insert(history[i].config);
      if (i < *first_) continue;
      if (history[i].status == Status::ok) return {};  // the pick is measured
      ++failures;
    }
    if (failures >= kMaxFailures || n <= 0) return {};
    if (!model_) throw Error("strategy predict proposes from the target's cross-task models: begin() loads them");
    if (ranked_.empty()) rank(space, seen, rng);
    std::vector<Config> out;
    const int among = !model_->a ? 1 : model_->pick_rule ? model_->pick_rule->among : kCompiled;
    while (!ranked_.empty() && static_cast<int>(out.size()) < std::min(n, among)) {
      if (!seen.count(ranked_.back())) out.push_back(ranked_.back());
      ranked_.pop_back();
    }
    return out;
  }

  std::vector<std::size_t> select(const Space& space, const std::vector<CompiledCandidate>& compiled, int n) override {
    if (compiled.empty() || n <= 0) return {};
    std::vector<float> score(compiled.size(), 0.f);
    if (model_->a) {
      FeatureRows rows;
      for (const auto& c : compiled) rows.push_back(inputs_.transfer_combined(space, c.config, c.hidden));
      score = model_->a->predict(rows);
    }
    // Without A (or with P alone as the rule, one candidate), P's order stands: propose() handed
    // them best first.
    const auto best = std::max_element(score.begin(), score.end());
    return {static_cast<std::size_t>(best - score.begin())};
  }

 private:
  // P's ranking of a pool drawn around the seeds, V's rejects removed; kept best last.
  void rank(const Space& space, const std::set<Config>& seen, std::mt19937_64& rng) {
    const ScoreFn p = [&](const std::vector<Config>& cs) { return model_->p->predict(inputs_.transfer_rows(space, cs)); };
    std::vector<Config> pool = space.untried_seeds(seen);
    if (static_cast<int>(pool.size()) < kMinPool) {
      const std::vector<Config> starts = pool;
      std::set<Config> taken(pool.begin(), pool.end());
      for (auto& c : anneal(space, p, kPool / 2, seen, starts, rng, anneal_options_for(space)))
        if (taken.insert(c).second) pool.push_back(std::move(c));
      for (int tries = 0; static_cast<int>(pool.size()) < kPool && tries < kPool * 20; ++tries) {
        Config c = space.random_config(rng);
        if (space.admissible(c) && !seen.count(c) && taken.insert(c).second) pool.push_back(std::move(c));
      }
    }
    if (pool.empty()) return;
    const std::vector<float> score = p(pool);
    std::vector<float> valid(pool.size(), 1.f);
    if (model_->v) valid = model_->v->predict(inputs_.transfer_rows(space, pool));
    std::vector<std::size_t> idx(pool.size());
    std::iota(idx.begin(), idx.end(), 0);
    // V's rejects go last rather than away: if V refuses everything, P's order still decides.
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      const bool va = valid[a] >= kValidCut, vb = valid[b] >= kValidCut;
      return va != vb ? va : score[a] > score[b];
    });
    for (auto it = idx.rbegin(); it != idx.rend(); ++it) ranked_.push_back(pool[*it]);
  }

  std::optional<TransferModel> model_;
  ModelInputs inputs_;
  std::vector<Config> ranked_;  // P's order, best last
  std::optional<std::size_t> first_;  // history's length when this run began
  std::mt19937_64 rng_{0};      // only to draw a config whose features give the width
};

}  // namespace

std::unique_ptr<Strategy> make_predict_search() { return std::make_unique<PredictSearch>(); }

}  // namespace attune
