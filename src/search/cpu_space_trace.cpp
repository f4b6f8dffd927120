// A CPU-space config's trace (cpu_space.hpp): the splits its tiles make, the loop order its
// knobs choose, the register tile, the packs and the parallel loops, in that order (each step
// names loops the earlier ones made).
#include <algorithm>
#include <functional>
#include <map>

#include "ir/error.hpp"
#include "search/cpu_space.hpp"
#include "search/register_tile.hpp"

namespace attune {

// Builds one config's trace a step at a time; its members name the loops the steps have made so
// far, by role ("" where the config makes none), for the steps after them.
struct CpuSpace::TraceBuilder {
  const CpuSpace& space;
  const Config& c;
  Trace t;
  std::map<std::string, std::int64_t> split_extent;  // loops made by the splits below
  std::string vec, vb, vo, vi;                       // V; its cache block, tile and vector loops
  std::string u, uo, ui, uph;                        // U; its tile, unrolled and stride phase loops
  std::string ro;                                    // the outer part of the split reduction
  std::vector<std::string> red_inner;                // the reductions inside the tiles
  std::vector<std::string> order, tiles;             // every loop innermost last; the tile loops
  bool hoist = false;                                // ro above the tiles
  std::size_t n_spatial_outer = 0;                   // loops of `order` above the reductions
  std::string acc_at;                                // where the register tile accumulates

  TraceBuilder(const CpuSpace& s, const Config& config) : space(s), c(config) {}

  const Op& op() const { return space.op_; }
  std::int64_t val(const std::string& name) const { return space.value(c, name); }

  void split(const std::string& v, const std::vector<std::int64_t>& factors) {
    t.steps.push_back(Transform::split(v, factors));
    for (std::size_t i = 0; i < factors.size(); ++i) split_extent[v + "." + std::to_string(i)] = factors[i];
  }

  // Vector tile, inside the V block when the config has one.
  void split_vector() {
    vec = space.vec_of(c);
    vi = vec;
    const std::int64_t ev = op().var(vec).extent, tv = space.vec_tile(c);
    if (const std::int64_t nb = space.block_columns(c); nb > 0) {
      split(vec, {(ev + nb - 1) / nb, nb / tv, tv});
      vb = vec + ".0", vo = vec + ".1", vi = vec + ".2";
    } else if (tv < ev) {
      split(vec, {(ev + tv - 1) / tv, tv});
      vo = vec + ".0", vi = vec + ".1";
    }
  }

  // Row tile. With row_phase, the rows first split off their stride phase (u = d*u.0 + u.1),
  // which goes outside the reductions: the taps then meet one residue class per phase and the
  // code generator steps them (the step_phases pass), while the rows tile u.0.
  void split_rows() {
    const std::vector<std::string> rows = space.rows_for(vec);
    u = rows.empty() ? "" : rows.at(static_cast<std::size_t>(val("row_var")) % rows.size());
    if (u.empty()) return;
    std::string base = u;
    std::int64_t eu = op().var(u).extent;
    const std::int64_t tu = val("row_tile");
    if (const std::int64_t d = space.optional("row_phase", c) == 1 ? space.phase_of(u) : 0; d > 1) {
      split(u, {eu / d, d});
      base = u + ".0", uph = u + ".1", eu /= d;
    }
    if (tu <= 1) {
      uo = base;
    } else if (tu >= eu) {
      ui = base;
    } else {
      split(base, {(eu + tu - 1) / tu, tu});
      uo = base + ".0", ui = base + ".1";
    }
  }

  void split_reductions() {
    const std::int64_t ks = val("red_split");
    for (const auto& r : op().reduction_vars()) {
      if (r == space.red_ && ks > 0) {
        split(r, {(op().var(r).extent + ks - 1) / ks, ks});
        ro = r + ".0";
        red_inner.push_back(r + ".1");
      } else {
        red_inner.push_back(r);
      }
    }
  }

  // The loop order of cpu_space.hpp, then the reorder step that makes it.
  void order_loops() {
    std::vector<std::string> outer;
    for (const auto& v : op().spatial_vars())
      if (v != vec && v != u) outer.push_back(v);
    if (!uph.empty()) outer.push_back(uph);
    for (const auto& x : val("tile_order") == 0 ? std::vector<std::string>{uo, vo} : std::vector<std::string>{vo, uo})
      if (!x.empty()) tiles.push_back(x);
    hoist = val("red_hoist") == 1 && !ro.empty();
    // outer_inside: [V block] [hoisted] V.0 [other spatial] U.0 ... (tile_order is moot then).
    const bool inside = space.optional("outer_inside", c) == 1;
    if (inside) {
      tiles.clear();
      if (!vo.empty()) tiles.push_back(vo);
      tiles.insert(tiles.end(), outer.begin(), outer.end());
      if (!uo.empty()) tiles.push_back(uo);
    }
    order = inside ? std::vector<std::string>{} : outer;
    if (!vb.empty()) order.push_back(vb);
    if (hoist) order.push_back(ro);
    order.insert(order.end(), tiles.begin(), tiles.end());
    if (!hoist && !ro.empty()) order.push_back(ro);
    n_spatial_outer = order.size() - (!hoist && !ro.empty() ? 1 : 0);
    order.insert(order.end(), red_inner.begin(), red_inner.end());
    if (!ui.empty()) order.push_back(ui);
    order.push_back(vi);
    if (order.size() > 1) t.steps.push_back(Transform::reorder(order));
  }

  // Accumulate the register tile locally, below the innermost spatial tile loop, with its rows
  // unrolled and its lanes vectorized (the local buffer's init and write-back copies too).
  void keep_tile_in_registers() {
    acc_at = n_spatial_outer > 0 ? order[n_spatial_outer - 1] : "";
    for (auto& x : register_tile_steps(op().output.tensor, acc_at, ui, vi)) t.steps.push_back(std::move(x));
  }

  void pack_inputs() {
    auto& s = t.steps;
    const std::string outer_tile = !tiles.empty() ? (hoist ? ro : tiles.front()) : acc_at;
    for (const auto& in : space.inputs_) {
      const std::int64_t level = val("pack_" + in);
      if (level == kPackAtTile && !acc_at.empty()) s.push_back(Transform::pack(in, acc_at));
      if (level == kPackAtOuterTile && !outer_tile.empty()) s.push_back(Transform::pack(in, outer_tile));
      if (level == kPackOnce) s.push_back(Transform::pack(in, "root"));
      if (level == kPackPadded) s.push_back(Transform::pack_padded(in));
    }
  }

  // The outermost spatial loop of more than one iteration at or below order[from], never the
  // vector loop itself (a short V in one tile: nothing outside it); "" when there is none.
  std::string outermost_spatial_loop(std::size_t from) const {
    auto extent = [&](const std::string& l) -> std::int64_t {
      const auto it = split_extent.find(l);
      return it != split_extent.end() ? it->second : op().var(l).extent;
    };
    for (std::size_t i = from; i < order.size(); ++i) {
      const std::string& l = order[i];
      if (l == vi) break;
      if (!op().is_reduction(l.substr(0, l.find('.'))) && extent(l) > 1) return l;
    }
    return "";
  }

  // Parallel: the outermost spatial loop, optionally fused with its child.
  void parallelize() {
    const std::int64_t par = val("parallel");
    // Choice 3 starts looking below the V block and the hoisted reduction.
    std::size_t from = 0;
    if (par == 3)
      for (std::size_t i = 0; i < order.size(); ++i)
        if (order[i] == vb || (hoist && order[i] == ro)) from = i + 1;
    if (par <= 0) return;
    std::string first = outermost_spatial_loop(from);
    if (!first.empty()) {
      if (par == 2) {
        const auto it = std::find(order.begin(), order.end(), first);
        if (it + 1 != order.end() && !op().is_reduction(std::next(it)->substr(0, std::next(it)->find('.')))) {
          t.steps.push_back(Transform::fuse(first));
          first = first + "_" + *std::next(it);
        }
      }
      t.steps.push_back(Transform::parallel(first));
    }
    space.parallelize_copies(t);
  }
};

Trace CpuSpace::trace(const Config& c) const {
  if (c.size() != knobs_.size())
    throw Error("config has " + std::to_string(c.size()) + " values, space has " + std::to_string(knobs_.size()) +
                " knobs");
  TraceBuilder b{*this, c};
  b.split_vector();
  b.split_rows();
  b.split_reductions();
  b.order_loops();
  b.keep_tile_in_registers();
  b.pack_inputs();
  b.parallelize();
  return std::move(b.t);
}

// The copy nests of packs placed outside the parallel loop (once, or at a hoisted reduction
// above it), and the output's zeroing and epilogue sweeps where they stay separate nests,
// would run on one thread while the others wait: split each one's outermost loop with more
// than one iteration across the threads as well.
void CpuSpace::parallelize_copies(Trace& t) const {
  LoopNest n;
  try {
    n = replay(op_, t);
  } catch (const Error&) {
    return;  // refused: the candidate is invalid whatever follows
  }
  std::vector<std::string> copies;
  std::function<void(const std::vector<Node>&)> walk = [&](const std::vector<Node>& nodes) {
    for (const auto& x : nodes) {
      if (!x.is_loop() || x.kind == LoopKind::parallel) continue;
      const auto at = x.var.find('@');
      if (at != std::string::npos && n.buffer(x.var.substr(at + 1)) && x.extent > 1) {
        copies.push_back(x.var);  // a pack's copy loop (cache_write's are "@buf.init"/".back")
        continue;
      }
      // The output's zeroing before a hoisted reduction (4 MiB at 1024^2), and a separate
      // epilogue: whole-tensor sweeps that one thread would otherwise do alone.
      if ((x.var.rfind("init.", 0) == 0 || x.var.rfind("epi.", 0) == 0) && x.extent > 1) {
        copies.push_back(x.var);
        continue;
      }
      walk(x.body);
    }
  };
  walk(n.body);
  for (const auto& l : copies) {
    const Transform p = Transform::parallel(l);
    if (!applicable(n, p)) continue;
    n = apply(n, p);
    t.steps.push_back(p);
  }
}

}  // namespace attune
