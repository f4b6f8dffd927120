// The VTA schedule space: AutoTVM's VTA conv2d/dense template knobs (codegen_vta.hpp).
//
// A config is the knob values themselves, not a loop-nest trace: the VTA backend compiles
// knobs directly (compile_vta), so trace() has nothing to return and the config's schedule is
// the knobs by name (schedule.hpp), which the database keys and lower() replays.
#include <cmath>

#include "codegen/codegen_vta.hpp"
#include "ir/error.hpp"
#include "search/tuner.hpp"

namespace attune {

namespace {

class VtaSpace final : public Space {
 public:
  VtaSpace(const Op& op, const VtaConfig& cfg) : problem_(vta_problem_of(op)), cfg_(cfg) {
    for (auto& [name, choices] : vta_knob_choices(problem_, cfg)) {
      std::string help = name.starts_with("tile_") ? "inner factor of the " + name.substr(5) + " split"
                                                   : "virtual threads (latency hiding)";
      knobs_.push_back({name, choices, help});
    }
  }

  std::string version() const override { return "vta-v1"; }
  const std::vector<Knob>& knobs() const override { return knobs_; }

  Trace trace(const Config&) const override {
    throw Error("a VTA schedule is a knob config, not a loop-nest trace: use Space::schedule");
  }

  Schedule schedule(const Config& c) const override {
    if (c.size() != knobs_.size())
      throw Error("config has " + std::to_string(c.size()) + " values, the VTA space has " +
                  std::to_string(knobs_.size()) + " knobs");
    Schedule s;
    s.knobs = AcceleratorKnobs{"vta", {}};
    for (std::size_t k = 0; k < knobs_.size(); ++k) s.knobs->values[knobs_[k].name] = knobs_[k].choices.at(c[k]);
    return s;
  }

  std::string hidden_kind() const override { return "vta"; }
  bool cheap_compile() const override { return true; }
  bool cheap_features() const override { return true; }

  // The knobs, the layer's shape and the tiled loop nest's static shape: tile counts per axis
  // and each tile's size in GEMM-core entries (what the user could work out by hand; the
  // compiler's exact buffer and micro-op use are hidden features).
  // The visible features hold no knob that is not also a shape or a tile count, and the same
  // knobs exist for every layer: they carry across layers as they are.
  std::vector<float> transfer_features(const Config& c) const override { return visible_features(c); }

  std::vector<float> visible_features(const Config& c) const override {
    std::vector<float> f = Space::visible_features(c);
    const VtaKnobs k = VtaKnobs::of(*schedule(c).knobs);
    const auto& p = problem_;
    const double bi = static_cast<double>(cfg_.block_in()), bo = static_cast<double>(cfg_.block_out()),
                 bb = static_cast<double>(cfg_.batch());
    const double cb = std::ceil(static_cast<double>(p.c) / bi), kb = std::ceil(static_cast<double>(p.k) / bo),
                 nb = std::ceil(static_cast<double>(p.n) / bb);
    const double th = static_cast<double>(k.tile_h), tw = static_cast<double>(k.tile_w);
    const double in_h = (th - 1) * static_cast<double>(p.stride) + static_cast<double>(p.r);
    const double in_w = (tw - 1) * static_cast<double>(p.stride) + static_cast<double>(p.s);
    for (double v :
         {static_cast<double>(p.n), static_cast<double>(p.c), static_cast<double>(p.h), static_cast<double>(p.w),
          static_cast<double>(p.k), static_cast<double>(p.r), static_cast<double>(p.s), static_cast<double>(p.stride),
          static_cast<double>(p.pad), static_cast<double>(p.oh), static_cast<double>(p.ow)})
      f.push_back(static_cast<float>(v));
    const double tiles_h = std::ceil(static_cast<double>(p.oh) / th),
                 tiles_w = std::ceil(static_cast<double>(p.ow) / tw);
    const double tiles_ci = cb / static_cast<double>(k.tile_ci), tiles_co = kb / static_cast<double>(k.tile_co);
    const double tiles_b = nb / static_cast<double>(k.tile_b);
    // Virtual threads split the outer tile loops of h and co: each thread keeps its own tiles
    // on chip, and a thread count that does not divide its loop leaves a tail.
    const double ht = static_cast<double>(k.h_nthread), ot = static_cast<double>(k.oc_nthread);
    const double inp = static_cast<double>(k.tile_b) * in_h * in_w * static_cast<double>(k.tile_ci);
    const double wgt = static_cast<double>(k.tile_co) * static_cast<double>(k.tile_ci) * static_cast<double>(p.r * p.s);
    const double acc = static_cast<double>(k.tile_b) * th * tw * static_cast<double>(k.tile_co);
    for (double v : {tiles_b, tiles_h, tiles_w, tiles_ci, tiles_co, tiles_b * tiles_h * tiles_w * tiles_co, inp, wgt,
                     acc,                                // entries per tile
                     inp * ht, wgt * ot, acc * ht * ot,  // ... times threads
                     inp * ht * cfg_.inp_elem_bytes(), wgt * ot * cfg_.wgt_elem_bytes(),
                     acc * ht * ot * cfg_.acc_elem_bytes(),                      // bytes on chip
                     th * tw * static_cast<double>(k.tile_ci * p.r * p.s),       // GEMM micro-ops
                     ht * ot, std::fmod(tiles_h, ht), std::fmod(tiles_co, ot)})  // threads, tails
      f.push_back(static_cast<float>(v));
    return f;
  }

 private:
  VtaProblem problem_;
  VtaConfig cfg_;
  std::vector<Knob> knobs_;
};

}  // namespace

std::unique_ptr<Space> make_vta_space(const Op& op, const VtaConfig& cfg) {
  return std::make_unique<VtaSpace>(op, cfg);
}

}  // namespace attune
