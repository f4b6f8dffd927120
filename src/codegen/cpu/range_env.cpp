#include "codegen/cpu/range_env.hpp"

#include <algorithm>

namespace attune::cgen {

std::int64_t floor_div(std::int64_t a, std::int64_t d) {
  std::int64_t q = a / d;
  if ((a % d != 0) && ((a < 0) != (d < 0))) --q;
  return q;
}

RangeEnv::RangeEnv(const LoopNest& nest) {
  for (const auto* l : sched::all_loops(nest.body)) {
    extents[l->var] = l->extent;
    for (const auto& b : l->bindings) extents[b.var] = b.extent;
  }
}

sched::Range RangeEnv::of(const AffineExpr& e) const {
  sched::Range r{e.constant, e.constant};
  for (const auto& [v, c] : e.terms) {
    std::int64_t lo = 0, hi = 0;
    if (auto k = consts.find(v); k != consts.end()) {
      lo = hi = k->second;
    } else if (auto s = parts.find(v); s != parts.end()) {
      lo = s->second.lo, hi = s->second.hi;
    } else if (auto x = extents.find(v); x != extents.end()) {
      hi = std::max<std::int64_t>(x->second - 1, 0);
    }
    r.lo += c > 0 ? c * lo : c * hi;
    r.hi += c > 0 ? c * hi : c * lo;
  }
  if (e.divisor != 1) r = {floor_div(r.lo, e.divisor), floor_div(r.hi, e.divisor)};
  return r;
}

}  // namespace attune::cgen
