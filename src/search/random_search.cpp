// Strategy "random": uniform configs, skipping ones already tried.
#include <set>

#include "search/strategies.hpp"

namespace attune {

namespace {

class RandomSearch final : public Strategy {
 public:
  std::string name() const override { return "random"; }
  std::vector<Config> propose(const Space& space, const std::vector<Trial>& history, int n,
                              std::mt19937_64& rng) override {
    std::set<Config> seen;
    for (const auto& t : history) seen.insert(t.config);
    std::vector<Config> out;
    for (int tries = 0; static_cast<int>(out.size()) < n && tries < n * 50; ++tries) {
      Config c = space.random_config(rng);
      if (seen.insert(c).second) out.push_back(std::move(c));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_random_search() { return std::make_unique<RandomSearch>(); }

}  // namespace attune
