// What every Space shares: random configs, descriptions and the size of the space.
#include <nlohmann/json.hpp>

#include "attune/tuner.hpp"

namespace attune {

nlohmann::json Space::describe(const Config& c) const {
  nlohmann::json j = nlohmann::json::object();
  const auto& ks = knobs();
  for (std::size_t i = 0; i < ks.size() && i < c.size(); ++i)
    if (knob_used(c, i)) j[ks[i].name] = ks[i].choices.at(c[i]);
  return j;
}

Artifact Space::lower(const Op& op, const Config& c, const CpuCodegenOptions& co) const {
  CpuCodegenOptions o = co;
  o.trace_json = trace_json(c);
  return lower_cpu(replay(op, trace(c)), o);
}

std::optional<Config> Space::config_from_record(const nlohmann::json& features) const {
  if (!features.is_object() || features.value("space", "") != version() || !features.contains("config")) return {};
  const auto& cfg = features.at("config");
  if (!cfg.is_array() || cfg.size() != knobs().size()) return {};
  Config c;
  for (const auto& v : cfg) {
    if (!v.is_number_integer()) return {};
    c.push_back(v.get<int>());
  }
  for (std::size_t i = 0; i < c.size(); ++i)
    if (c[i] < 0 || c[i] >= static_cast<int>(knobs()[i].choices.size())) return {};
  return c;
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
