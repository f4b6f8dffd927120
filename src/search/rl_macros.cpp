// The agent's macro moves (rl.hpp, TileMacro): the register-tile schedule of the CPU knob space
// (cpu_space.hpp) as single moves from the untransformed nest.
//
// Each macro is the knob space's trace for one (vector tile, row variable, row tile, reduction
// split, hoist, tile order) with no packing and no parallel loop — those stay primitive moves
// for the agent to add. A macro is offered only when every one of its steps applies in turn
// (the same applicable() that masks primitive moves) and its accumulator tile fits the target's
// register-tile budget (14 of 16 vector registers at AVX2, 28 of 32 at AVX-512); macros that
// expand to the same trace are offered once.
#include <set>

#include "ir/error.hpp"
#include "search/rl.hpp"
#include "search/tuner.hpp"

namespace attune::rl {

namespace {

int knob_index(const Space& space, const std::string& name) {
  const auto& ks = space.knobs();
  for (std::size_t i = 0; i < ks.size(); ++i)
    if (ks[i].name == name) return static_cast<int>(i);
  return -1;
}

// The spatial variable the knob space's row_var choice i names (cpu_space.cpp's rows_for).
std::string row_var_name(const Op& op, const std::string& vec, std::int64_t i) {
  std::vector<std::string> rows;
  for (const auto& s : op.spatial_vars())
    if (s != vec && op.var(s).extent > 1) rows.push_back(s);
  if (rows.empty()) return "";
  return rows.at(static_cast<std::size_t>(i) % rows.size());
}

// The output's contiguous variable, as cpu_space.cpp picks it.
std::string vec_var(const Op& op) {
  std::string vec;
  for (const auto& [v, c] : op.output.index.back().terms)
    if (c == 1 && !op.is_reduction(v)) vec = v;
  return vec.empty() ? op.spatial_vars().back() : vec;
}

}  // namespace

std::vector<TileMacro> tile_macros(const Op& op, VectorRegisters vectors) {
  if (op.multi_stage()) return {};                    // register tiles of a contraction's update; stages have none
  const auto space = make_cpu_space(op, 1, vectors);  // the tiles of this register file
  const int lanes = vectors.lanes;
  const auto& ks = space->knobs();
  const int i_vt = knob_index(*space, "vec_tile"), i_rv = knob_index(*space, "row_var"),
            i_rt = knob_index(*space, "row_tile"), i_rs = knob_index(*space, "red_split"),
            i_rh = knob_index(*space, "red_hoist"), i_to = knob_index(*space, "tile_order");
  if (i_vt < 0 || i_rv < 0 || i_rt < 0 || i_rs < 0 || i_rh < 0 || i_to < 0)
    throw InternalError("rl::tile_macros: the cpu space lost one of its tile knobs");
  const std::string vec = vec_var(op);
  const LoopNest initial = initial_nest(op);

  std::vector<TileMacro> out;
  std::set<std::string> seen;
  Config c(ks.size(), 0);  // packing 0 (none) and parallel 0 (serial) throughout
  auto n = [&](int i) { return static_cast<int>(ks[static_cast<std::size_t>(i)].choices.size()); };
  for (int vt = 0; vt < n(i_vt); ++vt)
    for (int rv = 0; rv < n(i_rv); ++rv)
      for (int rt = 0; rt < n(i_rt); ++rt)
        for (int rs = 0; rs < n(i_rs); ++rs)
          for (int rh = 0; rh < n(i_rh); ++rh)
            for (int to = 0; to < n(i_to); ++to) {
              c[i_vt] = vt, c[i_rv] = rv, c[i_rt] = rt, c[i_rs] = rs, c[i_rh] = rh, c[i_to] = to;
              const std::int64_t tv = ks[i_vt].choices[vt], tu = ks[i_rt].choices[rt];
              const std::string row = row_var_name(op, vec, ks[i_rv].choices[rv]);
              const std::int64_t tu_eff = row.empty() ? 1 : tu;
              if (tu_eff * ((tv + lanes - 1) / lanes) > vectors.accumulators()) continue;  // stays in registers
              if (ks[i_rs].choices[rs] == 0 && rh == 1) continue;                          // nothing to hoist
              TileMacro m;
              try {
                m.steps = space->trace(c);
                LoopNest nest = initial;
                for (const auto& s : m.steps.steps) {
                  if (!applicable(nest, s).ok) throw Error("not applicable");
                  nest = apply(nest, s);
                }
              } catch (const Error&) {
                continue;
              }
              if (m.steps.steps.empty() || !seen.insert(trace_to_string(m.steps)).second) continue;
              m.vec_tile = tv;
              m.row_var = row;
              m.row_tile = tu_eff;
              m.red_split = ks[i_rs].choices[rs];
              m.red_hoist = rh == 1;
              m.rows_inside = to == 1;
              out.push_back(std::move(m));
            }
  return out;
}

}  // namespace attune::rl
