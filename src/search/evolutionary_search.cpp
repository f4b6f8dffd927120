// Strategy "evolutionary": a steady-state genetic search over knob configs.
//
// The population is the best valid configs seen so far (elitism: they survive every round).
// Each proposal is a child of two parents drawn by tournament (uniform crossover of knob
// choices), then mutated (each knob re-drawn with probability 1/knobs, at least one); a share
// of each batch is random immigrants, and so is everything until enough valid configs exist.
// Invalid and failed configs are remembered only so they are not proposed again.
#include <algorithm>
#include <set>

#include "search/strategies.hpp"

namespace attune {

namespace {

constexpr int kPopulation = 16;
constexpr double kImmigrants = 0.2;

class EvolutionarySearch final : public Strategy {
 public:
  std::string name() const override { return "evolutionary"; }

  std::vector<Config> propose(const Space& space, const std::vector<Trial>& history, int n,
                              std::mt19937_64& rng) override {
    std::set<Config> seen;
    std::vector<const Trial*> valid;
    for (const auto& t : history) {
      seen.insert(t.config);
      if (t.status == Status::ok) valid.push_back(&t);
    }
    std::sort(valid.begin(), valid.end(), [](const Trial* a, const Trial* b) { return a->time_s < b->time_s; });
    if (valid.size() > kPopulation) valid.resize(kPopulation);

    std::vector<Config> out;
    std::uniform_real_distribution<double> coin(0, 1);
    const auto& knobs = space.knobs();
    for (int tries = 0; static_cast<int>(out.size()) < n && tries < n * 50; ++tries) {
      Config c;
      if (valid.size() < 4 || coin(rng) < kImmigrants) {
        c = space.random_config(rng);
      } else {
        const Config& a = tournament(valid, rng);
        const Config& b = tournament(valid, rng);
        c = a;
        for (std::size_t i = 0; i < c.size(); ++i)
          if (coin(rng) < 0.5) c[i] = b[i];
        bool mutated = false;
        while (!mutated) {
          for (std::size_t i = 0; i < c.size(); ++i) {
            if (knobs[i].choices.size() < 2 || coin(rng) >= 1.0 / static_cast<double>(c.size())) continue;
            c[i] = std::uniform_int_distribution<int>(0, static_cast<int>(knobs[i].choices.size()) - 1)(rng);
            mutated = true;
          }
          if (space.size() <= 1) break;
        }
      }
      if (!space.admissible(c)) continue;
      if (seen.insert(c).second) out.push_back(std::move(c));
    }
    return out;
  }

 private:
  static const Config& tournament(const std::vector<const Trial*>& pop, std::mt19937_64& rng) {
    std::uniform_int_distribution<std::size_t> pick(0, pop.size() - 1);
    const Trial* a = pop[pick(rng)];
    const Trial* b = pop[pick(rng)];
    return (a->time_s <= b->time_s ? a : b)->config;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_evolutionary_search() { return std::make_unique<EvolutionarySearch>(); }

}  // namespace attune
