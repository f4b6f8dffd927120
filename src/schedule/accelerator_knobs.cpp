// The knobs each accelerator template declares (schedule/schedule.hpp): the names a schedule's
// knobs may have, and their values when a schedule leaves them out.
//
// VTA: AutoTVM's conv2d/dense template (codegen_vta.hpp): the inner factors of the b, h, w,
// ci and co splits, and the virtual threads over output channels and rows. A GEMM's schedule
// has no tile_h or tile_w (its space offers none); they read as 1.
#include <algorithm>

#include "ir/error.hpp"
#include "schedule/schedule.hpp"

namespace attune {

const std::vector<AcceleratorKnob>& accelerator_knobs(std::string_view target) {
  static const std::vector<AcceleratorKnob> vta = {{"tile_b"},  {"tile_h"},     {"tile_w"},   {"tile_ci"},
                                                   {"tile_co"}, {"oc_nthread"}, {"h_nthread"}};
  static const std::vector<AcceleratorKnob> none;
  return target == "vta" ? vta : none;
}

std::int64_t AcceleratorKnobs::at(std::string_view name) const {
  const auto& declared = accelerator_knobs(target);
  const auto d =
      std::find_if(declared.begin(), declared.end(), [&](const AcceleratorKnob& k) { return k.name == name; });
  ATTUNE_CHECK(d != declared.end(), "knob '" + std::string(name) + "' is not one " + target + " declares");
  const auto v = values.find(std::string(name));
  return v == values.end() ? d->default_value : v->second;
}

}  // namespace attune
