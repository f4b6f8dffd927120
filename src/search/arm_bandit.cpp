// The arm bandit (search/tuner.hpp, make_arm_bandit): how an armed space's budget is shared.
//
// Each round's batch is dealt slot by slot. An arm not yet tried gets the next slot (in the
// space's order, which ranks mappings by promise), so every arm is tried once before any is
// tried twice; after that the slot goes to the arm with the highest UCB1 score
//   r_a + c * sqrt(ln(N) / n_a),   r_a = best time overall / arm a's best time (0: none valid),
// n_a the arm's attempts (slots dealt this round included), N all attempts. Rewards are
// relative throughputs in [0, 1], so c = kExplore = 0.3 lets an arm at a tenth of the best
// speed be retried about once or twice over a few hundred attempts, and an arm within a few
// percent of the best share the budget with it. An arm whose strategy proposes nothing new
// three times in a row is exhausted and gets no more slots.
//
// Within an arm, its own instance of the inner strategy proposes over an ArmView: the armed
// space with the arm knob pinned and the knobs the arm does not use reduced to their one
// choice, so evolutionary crossover and mutation only ever touch knobs that matter.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "ir/error.hpp"
#include "search/tuner.hpp"

namespace attune {

namespace {

constexpr double kExplore = 0.3;
constexpr int kEmptyAnswers = 3;

class ArmView final : public Space {
 public:
  ArmView(const Space& base, int arm) : base_(base) {
    const auto& ks = base.knobs();
    const std::size_t ak = static_cast<std::size_t>(base.arm_knob());
    Config probe(ks.size(), 0);
    probe[ak] = arm;
    fixed_.assign(ks.size(), -1);
    for (std::size_t k = 0; k < ks.size(); ++k) {
      if (k == ak || !base.knob_used(probe, k)) {
        fixed_[k] = k == ak ? arm : 0;
        knobs_.push_back({ks[k].name, {ks[k].choices.at(static_cast<std::size_t>(fixed_[k]))}, ks[k].help});
      } else {
        knobs_.push_back(ks[k]);
      }
    }
  }

  Config to_base(const Config& c) const {
    Config b = c;
    for (std::size_t k = 0; k < b.size(); ++k)
      if (fixed_[k] >= 0) b[k] = fixed_[k];
    return b;
  }
  // The view's config for a base config of this arm (nullopt for another arm's).
  std::optional<Config> from_base(const Config& b) const {
    if (b.size() != fixed_.size()) return {};
    Config c = b;
    for (std::size_t k = 0; k < c.size(); ++k) {
      if (fixed_[k] < 0) continue;
      if (b[k] != fixed_[k]) return {};
      c[k] = 0;
    }
    return c;
  }

  const std::vector<Knob>& knobs() const override { return knobs_; }
  std::string version() const override { return base_.version(); }
  std::vector<std::string> readable_versions() const override { return base_.readable_versions(); }
  Trace trace(const Config& c) const override { return base_.trace(to_base(c)); }
  Schedule schedule(const Config& c) const override { return base_.schedule(to_base(c)); }
  bool admissible(const Config& c) const override { return base_.admissible(to_base(c)); }
  std::vector<float> visible_features(const Config& c) const override { return base_.visible_features(to_base(c)); }
  std::vector<float> transfer_features(const Config& c) const override {
    return base_.transfer_features(to_base(c));
  }
  std::string hidden_kind() const override { return base_.hidden_kind(); }
  bool cheap_compile() const override { return base_.cheap_compile(); }
  bool cheap_features() const override { return base_.cheap_features(); }

 private:
  const Space& base_;
  std::vector<int> fixed_;  // the pinned choice per knob, -1 where the arm's search is free
  std::vector<Knob> knobs_;
};

class ArmBandit final : public Strategy {
 public:
  explicit ArmBandit(std::string inner) : inner_name_(std::move(inner)) {
    if (inner_name_ != "random" && inner_name_ != "evolutionary")
      throw Error("strategy '" + inner_name_ +
                  "' cannot search a space of mappings (it ranks the configs of one space): use --strategy "
                  "evolutionary or random, or --mappings off");
    make_strategy(inner_name_);  // the name must exist
  }

  std::string name() const override { return inner_name_; }

  std::vector<Config> propose(const Space& space, const std::vector<Trial>& history, int n,
                              std::mt19937_64& rng) override {
    const int ak = space.arm_knob();
    if (ak < 0) return arm(space, 0).strategy->propose(space, history, n, rng);
    const int arms = static_cast<int>(space.knobs().at(static_cast<std::size_t>(ak)).choices.size());

    std::vector<int> tried(static_cast<std::size_t>(arms), 0), dealt(static_cast<std::size_t>(arms), 0);
    std::vector<double> best(static_cast<std::size_t>(arms), std::numeric_limits<double>::infinity());
    double overall = std::numeric_limits<double>::infinity();
    for (const auto& t : history) {
      const int a = t.config.at(static_cast<std::size_t>(ak));
      ++tried.at(static_cast<std::size_t>(a));
      if (t.status == Status::ok && t.time_s > 0) {
        best[static_cast<std::size_t>(a)] = std::min(best[static_cast<std::size_t>(a)], t.time_s);
        overall = std::min(overall, t.time_s);
      }
    }
    auto deal = [&](int slots) {
      for (int s = 0; s < slots; ++s) {
        int pick = -1;
        for (int a = 0; a < arms && pick < 0; ++a)
          if (!exhausted_.count(a) && tried[a] + dealt[a] == 0) pick = a;
        if (pick < 0) {
          double total = 1;
          for (int a = 0; a < arms; ++a) total += tried[a] + dealt[a];
          double top = -1;
          for (int a = 0; a < arms; ++a) {
            if (exhausted_.count(a)) continue;
            const double r = std::isfinite(best[a]) ? overall / best[a] : 0.0;
            const double u = r + kExplore * std::sqrt(std::log(total) / (tried[a] + dealt[a]));
            if (u > top) top = u, pick = a;
          }
        }
        if (pick < 0) return;  // every arm exhausted
        ++dealt[pick];
      }
    };

    std::vector<Config> out;
    deal(n);
    for (int pass = 0; pass < 3 && static_cast<int>(out.size()) < n; ++pass) {
      for (int a = 0; a < arms; ++a) {
        if (dealt[a] == 0 || exhausted_.count(a)) continue;
        Arm& A = arm(space, a);
        std::vector<Trial> own;
        for (const auto& t : history)
          if (auto c = A.view->from_base(t.config)) own.push_back({*c, t.status, t.time_s, t.hidden});
        for (const auto& c : out)  // proposed this round by an earlier pass
          if (auto v = A.view->from_base(c)) own.push_back({*v, Status::invalid, 0, nullptr});
        const auto got = A.strategy->propose(*A.view, own, dealt[a], rng);
        // Strategies give up after a bounded number of draws, so one empty answer may be bad
        // luck in a nearly spent arm; three in a row mean it is spent.
        if (got.empty() && ++empty_[a] >= kEmptyAnswers) exhausted_.insert(a);
        if (!got.empty()) empty_[a] = 0;
        for (const auto& c : got) out.push_back(A.view->to_base(c));
        tried[a] += static_cast<int>(got.size());
        dealt[a] = 0;
      }
      deal(n - static_cast<int>(out.size()));  // slots an exhausted arm left over
    }
    return out;
  }

 private:
  struct Arm {
    std::unique_ptr<ArmView> view;
    std::unique_ptr<Strategy> strategy;
  };
  Arm& arm(const Space& space, int a) {
    auto& A = arms_[a];
    if (!A.strategy) {
      if (space.arm_knob() >= 0) A.view = std::make_unique<ArmView>(space, a);
      A.strategy = make_strategy(inner_name_);
    }
    return A;
  }

  std::string inner_name_;
  std::map<int, Arm> arms_;
  std::map<int, int> empty_;  // consecutive empty answers per arm
  std::set<int> exhausted_;
};

}  // namespace

std::unique_ptr<Strategy> make_arm_bandit(const std::string& inner) { return std::make_unique<ArmBandit>(inner); }

}  // namespace attune
