// Strategy "ml2": ML²Tuner's multi-level loop (../shared/SEEDS.md, cost_model.hpp).
//
// Per round of n measurements:
//   1. P (ranker, visible features) proposes: simulated annealing over P's scores gives a pool
//      of unseen configs (random ones until P exists), with a share of random exploration.
//   2. V (validity classifier, visible features) drops the ones it predicts invalid; the best
//      (alpha + 1) * n by P survive.
//   3. tune() compiles the survivors, records those that fail to compile (they are attempts,
//      and V learns from them), and reads the hidden features of the rest.
//   4. A (ranker, visible + hidden features) re-ranks them in select(); the top n are measured.
//   5. Next round all three retrain on everything recorded. V learns from every attempt; P and
//      A only from valid measurements (a failure is a label for V, never a zero for P/A).
// Across tasks (model/transfer_model.hpp): a task starts from the target's transfer models,
// trained on every earlier task's records, and uses them until it has kTrustOwn valid
// measurements of its own, or sooner, from kJudgeTransferFrom on, if they order this task's own
// measurements worse than a coin would (transfer_misleads()); while the transfer P leads, and
// until the task has kLocalUntil valid measurements, P ranks only configs within kLocalRadius
// knobs of the best measured ones (a local search around them). With a transfer A, the space's
// seed configs are its first round's proposals, in the transfer P's order, compiled like any,
// and A picks which of them are measured, after the space's first seed, the best of each
// structure (vector dimension) first (the seeds differ 20x; A, on what the compiler made of
// each, picked 0.92-0.94 of a held-out op's best among them in one round, and the 3rd or 4th
// best seed of dep_2 and t2d_2 in a later one: docs/results/transfer-2026-12-07-judge.md);
// without one the seeds are measured first, all of them, in P's order. At the end the transfer
// models are retrained when this run added enough records, and saved.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "db/db.hpp"
#include "ir/error.hpp"
#include "model/transfer_model.hpp"
#include "search/annealing.hpp"
#include "search/model_inputs.hpp"
#include "search/strategies.hpp"
#include "search/stratified_order.hpp"

namespace attune {

namespace {

constexpr double kExplore = 0.1;      // share of each proposal drawn at random (still V-filtered)
constexpr int kPoolFactor = 16;       // annealing pool per survivor wanted, before V filters
constexpr std::size_t kMinValid = 4;  // valid measurements before P and A train on this task
constexpr int kPassOverRounds = 3;    // rounds a config A passed over stays out of proposals
constexpr int kMaxFailedProbes = 5;   // failed probes against V in a row before V is believed
constexpr std::size_t kTrustOwn = 16;  // own valid measurements before own P/A replace transfer's
constexpr std::size_t kJudgeTransferFrom = 8;  // own valid measurements before transfer's are judged on them
constexpr double kClearlySlower = 1.25;        // times this far apart are ordered beyond timing noise
constexpr int kJudgedPairs = 8;                // such pairs of them a judgement needs
constexpr int kLocalRadius = 2;                // knobs a young P may change from a measured config
constexpr std::size_t kLocalStarts = 8;  // the best measured configs it searches around then
constexpr std::size_t kLocalUntil = 32;  // own valid measurements before P may rank the whole space

// The defaults (alpha = 3 on VTA, threshold 0.65) were chosen with bench/tuning_efficiency on VTA;
// ATTUNE_ML2_ALPHA and ATTUNE_ML2_THRESHOLD override them for such experiments, and
// ATTUNE_ML2_TRUST_OWN, ATTUNE_ML2_RADIUS, ATTUNE_ML2_LOCAL_UNTIL and ATTUNE_ML2_JUDGE_FROM
// override kTrustOwn, kLocalRadius (0: no radius), kLocalUntil and kJudgeTransferFrom (0: never
// judged).
int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}
// A count: at least `least`.
std::size_t env_count(const char* name, std::size_t fallback, int least) {
  return static_cast<std::size_t>(std::max(least, env_int(name, static_cast<int>(fallback))));
}
double env_double(const char* name, double fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atof(v) : fallback;
}

struct Models {
  std::optional<CostModel> v, p, a;
};

using Scorer = std::function<std::vector<float>(const std::vector<Config>&)>;

class Ml2Search final : public Strategy {
 public:
  std::string name() const override { return "ml2"; }
  // Compile (alpha + 1) x what is measured: alpha 3 where compiling is nearly free (VTA),
  // 2 where it runs a C compiler (CPU).
  int proposal_factor(const Space& space) const override {
    return std::max(0, env_int("ATTUNE_ML2_ALPHA", space.cheap_compile() ? 3 : 2)) + 1;
  }

  // With a transfer A, the seeds are proposed like any config and A chooses among them.
  bool measures_seeds_first() const override { return !seeds_by_a(); }

  void begin(const StrategyContext& ctx) override {
    if (!ctx.db || !ctx.space) return;
    transfer_width_ = ctx.space->transfer_features(ctx.space->random_config(rng_)).size();
    if (transfer_width_ == 0) return;
    transfer_ = current_transfer_model(*ctx.db, ctx.target, ctx.space->hidden_kind());
    // A model of other columns (written by another version of the features) cannot rank here.
    const std::size_t with_hidden = transfer_width_ + hidden_feature_names(ctx.space->hidden_kind()).size();
    if (transfer_ && ((transfer_->p && transfer_->p->columns() != transfer_width_) ||
                      (transfer_->v && transfer_->v->columns() != transfer_width_) ||
                      (transfer_->a && transfer_->a->columns() != with_hidden)))
      transfer_.reset();
  }

  // The seeds come first, whatever the models say: a model of other op families is a guess
  // about this one (trained on small ops, P once ranked unparallelized GEMMs first and ml2's own
  // models, trained on what it proposed, never learnt otherwise), and the seeds are strong and
  // varied. P decides their order; with a transfer A, A then picks among them (first_round_seeds()).
  void order_seeds(const Space& space, std::vector<Config>& seeds) override {
    if (!transfer_ || !transfer_->p || seeds.size() < 2) return;
    const std::vector<float> score = transfer_->p->predict(inputs_.transfer_rows(space, seeds));
    std::vector<std::size_t> idx(seeds.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return score[a] > score[b]; });
    std::vector<Config> ordered;
    for (std::size_t i : idx) ordered.push_back(seeds[i]);
    seeds = std::move(ordered);
  }

  // Folds this run's records into the target's transfer models (retrained when enough is new).
  void end(const StrategyContext& ctx) override {
    if (!ctx.db || ctx.db->read_only() || !ctx.space || transfer_width_ == 0) return;
    current_transfer_model(*ctx.db, ctx.target, ctx.space->hidden_kind());
  }

  std::vector<Config> propose(const Space& space, const std::vector<Trial>& history, int n,
                              std::mt19937_64& rng) override {
    retrain(space, history);
    // Configs A passed over recently are not proposed again: P would rank them on top every
    // round and they would crowd out everything else. After kPassOverRounds they may return
    // (the models have learnt more by then).
    ++round_;
    std::erase_if(passed_over_, [&](const auto& kv) { return round_ - kv.second > kPassOverRounds; });
    std::set<Config> seen;
    for (const auto& [c, r] : passed_over_) seen.insert(c);
    std::vector<const Trial*> ok;
    for (const auto& t : history) {
      seen.insert(t.config);
      if (t.status == Status::ok) ok.push_back(&t);
    }
    std::sort(ok.begin(), ok.end(), [](const Trial* a, const Trial* b) { return a->time_s < b->time_s; });

    const Scorer p = p_scorer(space);
    const Scorer v = v_scorer(space);
    if (auto seeds = first_round_seeds(space, seen); !seeds.empty()) {
      note_predictions(seeds, p, v);
      return seeds;
    }
    const int explore = std::max(1, static_cast<int>(n * kExplore));
    const int pool_n = kPoolFactor * n;

    std::vector<Config> ranked;  // P's pool, best first
    bool local = false;          // whether P's pool was searched within radius_ of measured configs
    if (p) {
      // The transfer P knows what runs well on other families, not on this one: far from what
      // was measured here it proposed kernels 4-15x slower than the seeds (a convolution
      // parallelised over its channel tiles), for rounds, until this task's own models took
      // over. And this task's own P, fitted to its first 8-16 measurements (on gemm_512 all
      // within 0.64-0.81 ms), ranks what lies far from them no better: its first rounds
      // measured 2-30x slower kernels. So while either is that young (fewer than
      // kLocalUntil valid measurements), P only ranks configs within kLocalRadius knobs of
      // the best measured ones.
      AnnealOptions o = anneal_options_for(space);
      local = (transfer_leads() || own_valid_ < local_until_) && !ok.empty() && radius_ > 0;
      if (local) o.radius = radius_;
      std::vector<Config> starts;
      for (std::size_t i = 0; i < ok.size() && i < (local ? kLocalStarts : 16); ++i) starts.push_back(ok[i]->config);
      ranked = anneal(space, p, pool_n, seen, starts, rng, o);
    }
    std::vector<Config> random;
    std::set<Config> taken(seen);
    for (const auto& c : ranked) taken.insert(c);
    const int random_n = p ? kPoolFactor * explore : pool_n;
    for (int tries = 0; static_cast<int>(random.size()) < random_n && tries < random_n * 50; ++tries) {
      Config c = space.random_config(rng);
      if (space.admissible(c) && taken.insert(c).second) random.push_back(std::move(c));
    }

    auto keep_valid = [&](std::vector<Config> cs, int want) {
      if (!v || cs.empty()) {
        if (static_cast<int>(cs.size()) > want) cs.resize(want);
        return cs;
      }
      const auto pv = v(cs);
      std::vector<Config> pass;
      for (std::size_t i = 0; i < cs.size() && static_cast<int>(pass.size()) < want; ++i)
        if (pv[i] >= threshold_) pass.push_back(cs[i]);
      return pass;
    };
    std::vector<Config> out;
    if (p) {
      out = keep_valid(ranked, n - explore);
      for (auto& c : keep_valid(random, n - static_cast<int>(out.size()))) out.push_back(std::move(c));
    } else if (v) {
      out = keep_valid(random, n);
    } else {
      // Nothing learnt yet: compiling more than is measured would only find failures no model
      // can use better than the measured ones.
      out.assign(random.begin(), random.begin() + std::min<std::ptrdiff_t>(std::ssize(random),
                                                                           std::max(1, n / proposal_factor(space))));
    }
    // V refuses everything left (the valid part of the space may be spent, or V is wrong):
    // probe with the one config V doubts least, so a wrong V is corrected slowly while a right
    // one costs one attempt per round instead of a batch of certain failures.
    // After kMaxFailedProbes probes in a row failed, V is believed: nothing is proposed and
    // the run ends (tune() stops after rounds without proposals) instead of spending the rest
    // of its budget on failures.
    int failed_probes = 0;
    for (const auto& t : history)
      if (probes_.count(t.config)) failed_probes = t.status == Status::ok ? 0 : failed_probes + 1;
    if (out.empty() && v && failed_probes < kMaxFailedProbes) {
      std::vector<Config> all = ranked;
      all.insert(all.end(), random.begin(), random.end());
      if (!all.empty()) {
        const auto pv = v(all);
        out.push_back(all[static_cast<std::size_t>(std::max_element(pv.begin(), pv.end()) - pv.begin())]);
        probes_.insert(out.back());
      }
    }
    note_predictions(out, p, v);
    // Where each came from: P's pool (searched near the measured configs or anywhere) or the
    // random share.
    const std::set<Config> from_pool(ranked.begin(), ranked.end());
    for (const auto& c : out) predicted_[c]["from"] = !from_pool.count(c) ? "explore" : local ? "local" : "anywhere";
    return out;
  }

  std::vector<std::size_t> select(const Space& space, const std::vector<CompiledCandidate>& compiled, int n) override {
    std::vector<std::size_t> idx(compiled.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    if (compiled.empty() || n <= 0) return {};
    std::vector<float> score;
    // A in the order p_scorer() takes P: this task's once trusted, else the transfer model's,
    // else this task's young one; P when there is no A yet.
    const bool use_transfer = transfer_ && transfer_->a && !(own_.a && trust_own());
    const bool by_a = use_transfer || own_.a;
    if (by_a) {
      FeatureRows rows;
      for (const auto& c : compiled)
        rows.push_back(use_transfer ? inputs_.transfer_combined(space, c.config, c.hidden)
                                    : inputs_.combined(space, c.config, c.hidden));
      score = (use_transfer ? *transfer_->a : *own_.a).predict(rows);
    } else if (const Scorer p = p_scorer(space)) {
      std::vector<Config> cs;
      for (const auto& c : compiled) cs.push_back(c.config);
      score = p(cs);
    }
    if (by_a)
      for (std::size_t i = 0; i < compiled.size(); ++i) {
        nlohmann::json& j = predicted_[compiled[i].config];
        j["a"] = score[i];
        j["ranked_by"] = use_transfer ? "transfer" : "own";
      }
    if (!score.empty())
      std::stable_sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) { return score[x] > score[y]; });
    // Among the seeds, the best of each structure first (stratified_order.hpp): which one runs
    // best is what the transfer A, trained on other families, knows least.
    if (const int k = space.structure_knob(); round_ == seeds_round_ && k >= 0) {
      std::vector<int> group;
      for (const auto& c : compiled) group.push_back(c.config.at(static_cast<std::size_t>(k)));
      idx = stratified_order(idx, group);
    }
    // And the space's first seed before them all: the seeds' order is what the code generator
    // knows, and A, trained on families whose spaces lack a kind of seed, cannot (t2d_2's
    // reduction-blocked seeds come first: every cold strategy reached 95% of its best of 300
    // trials at the first measurement, while A passed them over and ml2 needed 16-37).
    if (round_ == seeds_round_ && space_first_seed_) {
      const auto first =
          std::find_if(idx.begin(), idx.end(), [&](std::size_t i) { return compiled[i].config == *space_first_seed_; });
      if (first != idx.end()) std::rotate(idx.begin(), first, first + 1);
    }
    if (static_cast<int>(idx.size()) > n) {
      for (std::size_t i = n; i < idx.size(); ++i) passed_over_[compiled[idx[i]].config] = round_;
      idx.resize(n);
    }
    return idx;
  }

  nlohmann::json predictions(const Config& c) const override {
    const auto it = predicted_.find(c);
    return it == predicted_.end() ? nlohmann::json() : nlohmann::json{{"ml2", it->second}};
  }

 private:
  // Whether the seeds are proposed like any config for A to choose among: with a transfer A
  // (and the P that orders them), once begin() has loaded the transfer models.
  bool seeds_by_a() const { return transfer_ && transfer_->p && transfer_->a; }

  // The space's seeds not seen yet, all at once in the first round, in the transfer P's order
  // (seeds_by_a() only): A picks the round's measurements among all of them, and those it passes
  // over may come back later through P like any config. Handed out a round's share at a time,
  // the later rounds measured the best of what P had ranked last: on a convolution 12
  // measurements at 4x the best.
  std::vector<Config> first_round_seeds(const Space& space, const std::set<Config>& seen) {
    if (!seeds_by_a() || seeds_proposed_) return {};
    seeds_proposed_ = true;
    std::vector<Config> out = space.untried_seeds(seen);
    if (!out.empty()) space_first_seed_ = out.front();
    order_seeds(space, out);
    if (!out.empty()) seeds_round_ = round_;
    return out;
  }

  // P's score and V's probability of validity for the configs proposed (A's score is added in
  // select()), kept so that each record says what the models predicted for it, and whose models
  // ranked it ("ranked_by": "transfer" or "own").
  void note_predictions(const std::vector<Config>& out, const Scorer& p, const Scorer& v) {
    if (out.empty() || (!p && !v)) return;
    const std::vector<float> ps = p ? p(out) : std::vector<float>(), vs = v ? v(out) : std::vector<float>();
    for (std::size_t i = 0; i < out.size(); ++i) {
      nlohmann::json& j = predicted_[out[i]];
      if (i < ps.size()) {
        j["p"] = ps[i];
        j["ranked_by"] = transfer_leads() ? "transfer" : "own";  // select() says which A, when one ranks
      }
      if (i < vs.size()) {
        j["v"] = vs[i];
        j["v_cut"] = threshold_;
      }
    }
  }

  // Whether this task's own models have replaced the transfer models (when it has them).
  bool trust_own() const { return own_valid_ >= trust_own_ || transfer_misled_; }
  // Whether P is the transfer model's (p_scorer()).
  bool transfer_leads() const { return transfer_ && transfer_->p && !(own_.p && trust_own()); }

  // Whether the transfer models order this task's own measurements worse than chance: the mean
  // pairwise accuracy of transfer P and A below 0.5 on the pairs kClearlySlower apart, when
  // there are kJudgedPairs of them (measurements that differ less are within timing noise: on
  // gemm_512 eight kernels at 0.67-0.76 ms "refuted" a transfer model that was leading well).
  // The transfer models learn what runs well on other families; where this family differs they
  // keep proposing what it measured slow (on a held-out convolution, 30 ms kernels beside
  // 0.7 ms seeds: unpadded reads along the vector), and its own measurements say so early.
  bool transfer_misleads(const Space& space, const std::vector<const Trial*>& valid) {
    if (!transfer_ || judge_from_ == 0 || valid.size() < judge_from_) return false;
    std::vector<double> times;
    std::vector<Config> cs;
    FeatureRows with_hidden;
    for (const Trial* t : valid) {
      times.push_back(t->time_s);
      cs.push_back(t->config);
      if (!t->hidden.is_null()) with_hidden.push_back(inputs_.transfer_combined(space, t->config, t->hidden));
    }
    double sum = 0;
    int n = 0;
    auto judge = [&](const std::vector<float>& scores) {
      int pairs = 0;
      const double accuracy = pairwise_accuracy(scores, times, kClearlySlower, &pairs);
      if (pairs < kJudgedPairs) return;
      sum += accuracy;
      ++n;
    };
    if (transfer_->p) judge(transfer_->p->predict(inputs_.transfer_rows(space, cs)));
    if (transfer_->a && with_hidden.size() == valid.size()) judge(transfer_->a->predict(with_hidden));
    return n > 0 && sum / n < 0.5;
  }

  // P: this task's own once trusted (trust_own()), else the transfer model, else
  // this task's young one; empty when there is none yet.
  Scorer p_scorer(const Space& space) {
    if (transfer_leads())
      return [this, &space](const std::vector<Config>& cs) { return transfer_->p->predict(inputs_.transfer_rows(space, cs)); };
    if (own_.p)
      return [this, &space](const std::vector<Config>& cs) { return own_.p->predict(inputs_.visible_rows(space, cs)); };
    return {};
  }
  // V: this task's own as soon as it has one (failures are specific to the op), else transfer's.
  Scorer v_scorer(const Space& space) {
    if (own_.v)
      return [this, &space](const std::vector<Config>& cs) { return own_.v->predict(inputs_.visible_rows(space, cs)); };
    if (transfer_ && transfer_->v)
      return [this, &space](const std::vector<Config>& cs) { return transfer_->v->predict(inputs_.transfer_rows(space, cs)); };
    return {};
  }

  void retrain(const Space& space, const std::vector<Trial>& history) {
    std::set<Config> seen;
    FeatureRows vx, px, ax;
    std::vector<float> vy;
    std::vector<const Trial*> p_trials, a_trials;
    bool any_valid = false, any_invalid = false;
    for (const auto& t : history) {
      if (!seen.insert(t.config).second) continue;
      vx.push_back(inputs_.visible(space, t.config));
      vy.push_back(t.status == Status::ok ? 1.f : 0.f);
      (t.status == Status::ok ? any_valid : any_invalid) = true;
      if (t.status != Status::ok || t.time_s <= 0) continue;
      px.push_back(inputs_.visible(space, t.config));
      p_trials.push_back(&t);
      if (!t.hidden.is_null()) {
        ax.push_back(inputs_.combined(space, t.config, t.hidden));
        a_trials.push_back(&t);
      }
    }
    if (any_valid && any_invalid) {
      own_.v.emplace(ModelKind::validity);
      own_.v->fit(vx, vy);
    }
    own_valid_ = p_trials.size();
    // Once its own measurements refute the transfer models, this task keeps to its own.
    if (!transfer_misled_ && own_valid_ < trust_own_) transfer_misled_ = transfer_misleads(space, p_trials);
    if (p_trials.size() >= kMinValid) {
      own_.p.emplace(ModelKind::rank);
      own_.p->fit(px, throughput_labels(p_trials));
    }
    if (a_trials.size() >= kMinValid) {
      own_.a.emplace(ModelKind::rank);
      own_.a->fit(ax, throughput_labels(a_trials));
    }
  }

  const float threshold_ = static_cast<float>(env_double("ATTUNE_ML2_THRESHOLD", 0.65));  // V's P(valid) cut
  const int radius_ = std::max(0, env_int("ATTUNE_ML2_RADIUS", kLocalRadius));
  const std::size_t local_until_ = env_count("ATTUNE_ML2_LOCAL_UNTIL", kLocalUntil, 0);
  const std::size_t trust_own_ = env_count("ATTUNE_ML2_TRUST_OWN", kTrustOwn, 1);
  const std::size_t judge_from_ = env_count("ATTUNE_ML2_JUDGE_FROM", kJudgeTransferFrom, 0);
  ModelInputs inputs_;
  Models own_;
  std::optional<TransferModel> transfer_;  // the target's cross-task models, when there are any
  std::size_t transfer_width_ = 0;         // the space's transfer feature count (0: none)
  std::size_t own_valid_ = 0;              // this task's distinct valid measurements
  std::set<Config> probes_;            // configs proposed against V's advice
  std::map<Config, int> passed_over_;  // compiled, ranked below the cut by select(): -> round
  // predictions(): {"p", "a", "v", "v_cut", "ranked_by", "from"} per config
  std::map<Config, nlohmann::json> predicted_;
  int round_ = 0;
  bool seeds_proposed_ = false;
  int seeds_round_ = 0;           // the round whose proposals were the seeds (first_round_seeds(); 0: none)
  std::optional<Config> space_first_seed_;  // the first of them in the space's own order
  bool transfer_misled_ = false;  // transfer_misleads() said so once
  std::mt19937_64 rng_{0};  // only to draw a config whose features give the width
};

}  // namespace

std::unique_ptr<Strategy> make_ml2_search() { return std::make_unique<Ml2Search>(); }

}  // namespace attune
