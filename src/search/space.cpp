// What every Space shares: random configs, descriptions and the size of the space.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "search/tuner.hpp"

namespace attune {

nlohmann::json Space::describe(const Config& c) const {
  nlohmann::json j = nlohmann::json::object();
  const auto& ks = knobs();
  for (std::size_t i = 0; i < ks.size() && i < c.size(); ++i)
    if (knob_used(c, i)) j[ks[i].name] = ks[i].choices.at(c[i]);
  return j;
}

std::optional<Config> Space::config_from_knobs(const nlohmann::json& named) const {
  if (!named.is_object()) return {};
  const auto& ks = knobs();
  Config c(ks.size(), 0);
  std::size_t found = 0;
  for (std::size_t k = 0; k < ks.size(); ++k) {
    const auto it = named.find(ks[k].name);
    if (it == named.end()) continue;
    if (!it->is_number_integer()) return {};
    const auto& ch = ks[k].choices;
    const auto at = std::find(ch.begin(), ch.end(), it->get<std::int64_t>());
    if (at == ch.end()) return {};  // a value this space does not offer
    c[k] = static_cast<int>(at - ch.begin());
    ++found;
  }
  if (found != named.size()) return {};  // a knob this space does not have
  return c;
}

std::optional<Config> Space::config_from_record(const nlohmann::json& features) const {
  if (!features.is_object() || !features.contains("knobs")) return {};
  const auto versions = readable_versions();
  if (std::find(versions.begin(), versions.end(), features.value("space", "")) == versions.end()) return {};
  return config_from_knobs(features.at("knobs"));
}

Config Space::random_config(std::mt19937_64& rng) const {
  Config c;
  // Rejection sampling keeps the draw uniform over admissible configs.
  for (int tries = 0; tries < 1000; ++tries) {
    c.clear();
    for (const auto& k : knobs())
      c.push_back(std::uniform_int_distribution<int>(0, static_cast<int>(k.choices.size()) - 1)(rng));
    if (admissible(c)) break;
  }
  return c;
}

std::vector<float> Space::visible_features(const Config& c) const {
  std::vector<float> f;
  const auto& ks = knobs();
  for (std::size_t i = 0; i < ks.size() && i < c.size(); ++i) f.push_back(static_cast<float>(ks[i].choices.at(c[i])));
  return f;
}

std::vector<Config> Space::untried_seeds(const std::set<Config>& tried) const {
  std::vector<Config> out;
  for (auto& c : seed_configs())
    if (admissible(c) && !tried.count(c) && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
  return out;
}

std::size_t Space::size() const {
  std::size_t n = 1;
  for (const auto& k : knobs()) {
    if (n > (SIZE_MAX / 64)) return SIZE_MAX;
    n *= k.choices.size();
  }
  return n;
}

double gflops_of(const Op& op, double seconds) { return seconds > 0 ? op.flops() / seconds / 1e9 : 0; }

}  // namespace attune
