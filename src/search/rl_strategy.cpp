// Strategy "rl" in the table of strategies: the RL agent proposes traces rather than knob
// configs, so tune() runs it on its own path (rl_tune.cpp); this object only gives it a name
// (for make_strategy's check and strategy_names()) and refuses to propose configs.
#include "attune/error.hpp"
#include "search/strategies.hpp"

namespace attune {

namespace {

class RlSearch final : public Strategy {
 public:
  std::string name() const override { return "rl"; }
  std::vector<Config> propose(const Space&, const std::vector<Trial>&, int, std::mt19937_64&) override {
    throw InternalError("strategy rl proposes traces through tune_rl(), not configs");
  }
};

}  // namespace

std::unique_ptr<Strategy> make_rl_search() { return std::make_unique<RlSearch>(); }

}  // namespace attune
