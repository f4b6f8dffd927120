// The VTA schedule space: AutoTVM's VTA conv2d/dense template knobs (codegen_vta.hpp).
//
// A config is the knob values themselves, not a loop-nest trace: the VTA backend compiles
// knobs directly (compile_vta), so trace() has nothing to return and trace_json() stores
//   {"schema_version": 1, "target": "vta", "knobs": {"tile_b": 1, ...}}
// which is what the database keys and replays by (VtaKnobs::from_json(j["knobs"])).
#include <nlohmann/json.hpp>

#include "attune/codegen_vta.hpp"
#include "attune/error.hpp"
#include "attune/tuner.hpp"

namespace attune {

namespace {

constexpr int kVtaTraceSchemaVersion = 1;

class VtaSpace final : public Space {
 public:
  VtaSpace(const Op& op, const VtaConfig& cfg) {
    for (auto& [name, choices] : vta_knob_choices(vta_problem_of(op), cfg)) {
      std::string help = name.starts_with("tile_") ? "inner factor of the " + name.substr(5) + " split"
                                                    : "virtual threads (latency hiding)";
      knobs_.push_back({name, choices, help});
    }
  }

  const std::vector<Knob>& knobs() const override { return knobs_; }

  Trace trace(const Config&) const override {
    throw Error("a VTA schedule is a knob config, not a loop-nest trace: use Space::trace_json");
  }

  std::string trace_json(const Config& c) const override {
    if (c.size() != knobs_.size())
      throw Error("config has " + std::to_string(c.size()) + " values, the VTA space has " +
                  std::to_string(knobs_.size()) + " knobs");
    return nlohmann::json{{"schema_version", kVtaTraceSchemaVersion}, {"target", "vta"}, {"knobs", describe(c)}}.dump();
  }

 private:
  std::vector<Knob> knobs_;
};

}  // namespace

std::unique_ptr<Space> make_vta_space(const Op& op, const VtaConfig& cfg) {
  return std::make_unique<VtaSpace>(op, cfg);
}

}  // namespace attune
