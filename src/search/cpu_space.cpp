// The CPU schedule space: a register-blocked micro-kernel generalised to every contraction.
//
// The vector dimension V (a knob: the output's last index, or for short ones such as NCHW's
// w, a spatial variable the same inputs do not read, such as the output channels) is split
// into a vector tile; another spatial variable U (a knob) into a tile of rows that is unrolled; the
// largest reduction may be split (and its outer part hoisted above the spatial tiles, GEMM
// panel style); the output tile accumulates in a local buffer that the code generator keeps in
// registers; each input may be packed at one of several levels; the outermost spatial loop may
// run in parallel. The resulting loop order, innermost last:
//
//   [other spatial] [V block] [hoisted reduction] [U.0 V tile in knob order] [reductions] U.1 (unroll) V (vector)
//
// (the V block, an L2 cache block of the vector dimension, only when the knob asks for one).
//
// Every config expands to a trace; whether it is legal is for the transformations to say
// (a refused step makes the candidate `invalid`, recorded but never built).
#include <algorithm>
#include <functional>

#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "ir/error.hpp"
#include "model/features.hpp"
#include "schedule/analysis.hpp"
#include "search/tuner.hpp"

namespace attune {

namespace {

class CpuSpace final : public Space {
 public:
  CpuSpace(const Op& op, int threads, VectorRegisters vectors) : op_(op), lanes_(vectors.lanes), vectors_(vectors) {
    // V: the output's last index when it is a plain variable (else the last spatial var).
    std::string natural;
    const auto& last = op.output.index.back();
    for (const auto& [v, c] : last.terms)
      if (c == 1 && !op.is_reduction(v)) natural = v;
    if (natural.empty()) natural = op.spatial_vars().back();
    vecs_.push_back(natural);
    // When the natural V is short (NCHW convolutions: w = 56 ... 7), or some input reads it
    // with a stride (a strided NCHW convolution, whose vector loads along w would need that
    // input repacked im2col-style every call: 29 MiB for ResNet's first layer), a spatial
    // variable that no input read by V uses may be the vector instead (NCHW's output channels
    // k): those inputs are then broadcast, the others packed so V is contiguous, and the
    // output tile is written back lane by lane.
    bool strided_natural = false;
    for (const auto& a : op.inputs) strided_natural = strided_natural || strided_in(a, natural);
    if (op.var(natural).extent < 64 || strided_natural)
      for (const auto& x : op.spatial_vars()) {
        const std::int64_t e = op.var(x).extent;
        if (x == natural || e < 16 || e % lanes_ != 0) continue;
        bool shares = false;
        for (const auto& a : op.inputs) {
          bool has_v = false, has_x = false;
          for (const auto& ix : a.index) has_v = has_v || ix.uses(natural), has_x = has_x || ix.uses(x);
          shares = shares || (has_v && has_x);
        }
        if (!shares) vecs_.push_back(x);
      }
    for (const auto& r : op.reduction_vars())
      if (red_.empty() || op.var(r).extent > op.var(red_).extent) red_ = r;
    inputs_ = op.input_tensors();
    if (op.epilogue.bias) std::erase(inputs_, op.epilogue.bias->tensor);

    std::int64_t ev = 0;
    std::string names;
    for (const auto& v : vecs_) ev = std::max(ev, op.var(v).extent), names += (names.empty() ? "" : "|") + v;
    Knob vv{"vec_var", {}, "the vector dimension: " + names};
    for (std::size_t i = 0; i < vecs_.size(); ++i) vv.choices.push_back(static_cast<std::int64_t>(i));
    knobs_.push_back(vv);
    Knob vt{"vec_tile", {}, "vector tile (lanes of the vector dimension in the register tile)"};
    for (std::int64_t n = 1; n <= 4; ++n)
      if (n * lanes_ <= round_up(ev)) vt.choices.push_back(n * lanes_);
    if (vt.choices.empty()) vt.choices.push_back(ev);
    knobs_.push_back(vt);
    // An L2 block of the vector dimension (GEMM's NC): the hoisted reduction panel of the
    // packed input then covers only this many columns, so it stays in L2 while the row tiles
    // sweep it. 0: no block. Rounded down to a multiple of the vector tile when expanded.
    Knob vb{"vec_block", {0}, "columns of the vector dimension per cache block (0: none)"};
    for (std::int64_t b : {64, 128, 256, 512})
      if (b * 2 <= ev) vb.choices.push_back(b);
    knobs_.push_back(vb);

    // Every choice of V leaves the same number of row candidates (the other spatial vars).
    std::size_t n_rows = 0;
    for (const auto& x : op.spatial_vars()) n_rows += x != natural && op.var(x).extent > 1;
    Knob rv{"row_var", {}, "spatial variable of the unrolled rows"};
    for (std::size_t i = 0; i < std::max<std::size_t>(n_rows, 1); ++i)
      rv.choices.push_back(static_cast<std::int64_t>(i));
    knobs_.push_back(rv);
    // 7 came last (it divides 56, 28, 14 and 7, the ResNet widths), then 12 and 14 (AVX-512's
    // 32 registers hold 12 or 14 rows of two vectors): appended, so the older choices keep
    // their indices and "cpu-v2" records still read back.
    knobs_.push_back({"row_tile", {1, 2, 3, 4, 5, 6, 8, 7, 12, 14}, "rows in the register tile"});

    Knob rs{"red_split", {0}, "inner extent of the split of reduction " + red_};
    if (!red_.empty())
      for (std::int64_t t : {8, 16, 32, 64, 128, 256, 512})
        if (t < op.var(red_).extent) rs.choices.push_back(t);
    knobs_.push_back(rs);
    knobs_.push_back({"red_hoist", {0, 1}, "outer part of the split reduction above the spatial tiles"});
    knobs_.push_back({"tile_order", {0, 1}, "0: rows tile outside the vector tile, 1: inside"});
    // Level 4 (a padded copy in the tensor's own layout) only where the read leaves the tensor.
    const LoopNest initial = initial_nest(op);
    for (const auto& t : inputs_) {
      Knob k{"pack_" + t, {0, 1, 2, 3}, "pack " + t + ": 0 no, 1 at the tile, 2 at the outer tile, 3 once"};
      if (reads_outside(initial, t)) k.choices.push_back(4), k.help += ", 4 a zero-padded copy";
      knobs_.push_back(k);
    }
    // 3 (appended: older records keep their choices) is BLIS's ic loop: the threads share the
    // cache block's packed panel and split its row tiles, instead of taking whole blocks each
    // (two blocks of 512 and 256 columns split 2:1; each thread would stream all of the other
    // input through its own panel).
    knobs_.push_back({"parallel", threads > 1 ? std::vector<std::int64_t>{0, 1, 2, 3} : std::vector<std::int64_t>{0},
                      "0 serial, 1 outermost spatial loop, 2 fused with its child, 3 the outermost one inside the "
                      "cache block and hoisted reduction"});
    parallel_knob_ = knobs_.size() - 1;
    // Optional knobs follow, each only where it can matter; a record written before one
    // existed reads back with it at choice 0 (config_from_record), which is the old schedule.
    base_knobs_ = knobs_.size();
    // Where a row variable is read through a division (a transposed convolution's pixels).
    bool phase = false;
    for (const auto& v : vecs_)
      for (const auto& x : rows_for(v)) phase = phase || phase_of(x) > 1;
    if (phase)
      knobs_.push_back({"row_phase", {0, 1}, "1: the rows' stride phase outside the reductions (strided taps step)"});
    // Where spatial loops surround the tiles (a convolution's other pixel dimension).
    bool around = false;
    for (const auto& v : vecs_) around = around || rows_for(v).size() >= 2;
    if (around)
      knobs_.push_back({"outer_inside",
                        {0, 1},
                        "1: the other spatial loops inside the vector tile loop (each weight panel is swept over "
                        "every pixel while it is in cache)"});
  }

  std::string version() const override { return "cpu-v3"; }
  // "cpu-v2" had no vec_var knob (its V was always the natural one, choice 0 here) and a subset
  // of the other knobs' choices: read by name, its configs are this space's with V = 0.
  std::vector<std::string> readable_versions() const override { return {"cpu-v3", "cpu-v2"}; }
  const std::vector<Knob>& knobs() const override { return knobs_; }

  // The accumulator tile must fit the vector registers (16 for AVX2, 32 for AVX-512) with room
  // for operands, or the code generator cannot keep it there and the micro-kernel runs from
  // memory.
  bool admissible(const Config& c) const override {
    const std::int64_t tv = vec_tile(c);
    const std::int64_t tu = rows_for(vec_of(c)).empty() ? 1 : knobs_[4].choices.at(static_cast<std::size_t>(c[4]));
    const std::int64_t vb = knobs_[2].choices.at(static_cast<std::size_t>(c[2]));
    // A block must hold at least two vector tiles (else it is no block, spelled otherwise).
    if (tu * ((tv + lanes_ - 1) / lanes_) > max_accumulators() || (vb != 0 && vb < 2 * tv)) return false;
    // Parallel inside the cache block needs a block or a hoisted reduction to be inside of
    // (else it is choice 1 spelled otherwise).
    const auto& par = knobs_[parallel_knob_].choices;
    if (par.at(static_cast<std::size_t>(c[parallel_knob_])) == 3) return blocked(c);
    return true;
  }

  Trace trace(const Config& c) const override {
    if (c.size() != knobs_.size())
      throw Error("config has " + std::to_string(c.size()) + " values, space has " + std::to_string(knobs_.size()) +
                  " knobs");
    auto val = [&](const std::string& name) {
      for (std::size_t i = 0; i < knobs_.size(); ++i)
        if (knobs_[i].name == name) return knobs_[i].choices.at(static_cast<std::size_t>(c[i]));
      throw Error("no knob " + name);
    };
    Trace t;
    auto& s = t.steps;
    const std::string out = op_.output.tensor;
    std::map<std::string, std::int64_t> split_extent;  // loops made by the splits below
    auto split = [&](const std::string& v, const std::vector<std::int64_t>& factors) {
      s.push_back(Transform::split(v, factors));
      for (std::size_t i = 0; i < factors.size(); ++i) split_extent[v + "." + std::to_string(i)] = factors[i];
    };

    // Vector tile.
    const std::string vec = vec_of(c);
    const std::vector<std::string> rows = rows_for(vec);
    const std::int64_t ev = op_.var(vec).extent, tv = vec_tile(c);
    const std::int64_t nb = val("vec_block") / tv * tv;  // columns per block, whole tiles
    std::string vb, vo, vi = vec;
    if (tv < ev && nb > tv && nb < ev) {
      split(vec, {(ev + nb - 1) / nb, nb / tv, tv});
      vb = vec + ".0", vo = vec + ".1", vi = vec + ".2";
    } else if (tv < ev) {
      split(vec, {(ev + tv - 1) / tv, tv});
      vo = vec + ".0", vi = vec + ".1";
    }
    // Row tile. With row_phase, the rows first split off their stride phase (u = d*u.0 + u.1),
    // which goes outside the reductions: the taps then meet one residue class per phase and the
    // code generator steps them (the step_phases pass), while the rows tile u.0.
    std::string u = rows.empty() ? "" : rows.at(static_cast<std::size_t>(val("row_var")) % rows.size());
    std::string uo, ui, uph;
    if (!u.empty()) {
      std::string base = u;
      std::int64_t eu = op_.var(u).extent;
      const std::int64_t tu = val("row_tile");
      if (const std::int64_t d = optional("row_phase", c) == 1 ? phase_of(u) : 0; d > 1) {
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
    // Reductions.
    std::string ro;
    std::vector<std::string> red_inner;
    const std::int64_t ks = val("red_split");
    for (const auto& r : op_.reduction_vars()) {
      if (r == red_ && ks > 0) {
        split(r, {(op_.var(r).extent + ks - 1) / ks, ks});
        ro = r + ".0";
        red_inner.push_back(r + ".1");
      } else {
        red_inner.push_back(r);
      }
    }
    // Loop order.
    std::vector<std::string> outer;
    for (const auto& v : op_.spatial_vars())
      if (v != vec && v != u) outer.push_back(v);
    if (!uph.empty()) outer.push_back(uph);
    std::vector<std::string> tiles;
    for (const auto& x : val("tile_order") == 0 ? std::vector<std::string>{uo, vo} : std::vector<std::string>{vo, uo})
      if (!x.empty()) tiles.push_back(x);
    const bool hoist = val("red_hoist") == 1 && !ro.empty();
    // outer_inside: [V block] [hoisted] V.0 [other spatial] U.0 ... (tile_order is moot then).
    const bool inside = optional("outer_inside", c) == 1;
    if (inside) {
      tiles.clear();
      if (!vo.empty()) tiles.push_back(vo);
      tiles.insert(tiles.end(), outer.begin(), outer.end());
      if (!uo.empty()) tiles.push_back(uo);
    }
    std::vector<std::string> order = inside ? std::vector<std::string>{} : outer;
    if (!vb.empty()) order.push_back(vb);
    if (hoist) order.push_back(ro);
    order.insert(order.end(), tiles.begin(), tiles.end());
    if (!hoist && !ro.empty()) order.push_back(ro);
    const std::size_t n_spatial_outer = order.size() - (!hoist && !ro.empty() ? 1 : 0);
    order.insert(order.end(), red_inner.begin(), red_inner.end());
    if (!ui.empty()) order.push_back(ui);
    order.push_back(vi);
    if (order.size() > 1) s.push_back(Transform::reorder(order));

    // Accumulate the register tile locally, below the innermost spatial tile loop.
    const std::string acc_at = n_spatial_outer > 0 ? order[n_spatial_outer - 1] : "";
    if (!acc_at.empty()) s.push_back(Transform::cache_write(out, acc_at));
    if (!ui.empty()) s.push_back(Transform::unroll(ui));
    s.push_back(Transform::vectorize(vi));
    if (!acc_at.empty()) {
      const std::string buf = out + "_l";
      for (const char* part : {".init", ".back"}) {
        if (!ui.empty()) s.push_back(Transform::unroll(ui + "@" + buf + part));
        s.push_back(Transform::vectorize(vi + "@" + buf + part));
      }
    }
    // Packing.
    const std::string outer_tile = !tiles.empty() ? (hoist ? ro : tiles.front()) : acc_at;
    for (const auto& in : inputs_) {
      const std::int64_t level = val("pack_" + in);
      if (level == 1 && !acc_at.empty()) s.push_back(Transform::pack(in, acc_at));
      if (level == 2 && !outer_tile.empty()) s.push_back(Transform::pack(in, outer_tile));
      if (level == 3) s.push_back(Transform::pack(in, "root"));
      if (level == 4) s.push_back(Transform::pack_padded(in));
    }
    // Parallel: the outermost spatial loop, optionally fused with its child.
    const std::int64_t par = val("parallel");
    // Choice 3 starts looking below the V block and the hoisted reduction.
    std::size_t from = 0;
    if (par == 3)
      for (std::size_t i = 0; i < order.size(); ++i)
        if (order[i] == vb || (hoist && order[i] == ro)) from = i + 1;
    if (par > 0) {
      auto extent = [&](const std::string& l) -> std::int64_t {
        const auto it = split_extent.find(l);
        return it != split_extent.end() ? it->second : op_.var(l).extent;
      };
      std::string first;  // never the vector loop itself (a short V in one tile: nothing outside it)
      for (std::size_t i = from; i < order.size(); ++i) {
        const std::string& l = order[i];
        if (l == vi) break;
        if (!op_.is_reduction(l.substr(0, l.find('.'))) && extent(l) > 1) {
          first = l;
          break;
        }
      }
      if (!first.empty()) {
        if (par == 2) {
          const auto it = std::find(order.begin(), order.end(), first);
          if (it + 1 != order.end() && !op_.is_reduction(std::next(it)->substr(0, std::next(it)->find('.')))) {
            s.push_back(Transform::fuse(first));
            first = first + "_" + *std::next(it);
          }
        }
        s.push_back(Transform::parallel(first));
      }
      parallelize_copies(t);
    }
    return t;
  }

  // For each choice of the vector dimension, plain register tiles (rows x vectors: with AVX2's
  // 8 lanes 8x1, 6x2 and 4x2, and up to 8x1 and 7x2 rows dividing the row extent; with
  // AVX-512's 16 lanes and 32 registers 12x2, 6x4, 8x3 and 6x2, and up to 14x2 and 7x4 rows
  // dividing the row extent): inputs that
  // the vector dimension walks with a stride are packed once (so the tile's loads are
  // contiguous), inputs read outside their bounds get the padded copy, and the outermost loop
  // runs in parallel when there are threads for it. Then the cache-blocked seeds (below).
  std::vector<Config> seed_configs() const override {
    std::vector<Config> out;
    auto at = [&](const std::string& name) {
      for (std::size_t i = 0; i < knobs_.size(); ++i)
        if (knobs_[i].name == name) return i;
      throw Error("no knob " + name);
    };
    auto choice = [&](std::size_t k, std::int64_t value) {
      const auto& ch = knobs_[k].choices;
      const auto it = std::find(ch.begin(), ch.end(), value);
      return it == ch.end() ? -1 : static_cast<int>(it - ch.begin());
    };
    for (std::size_t v = 0; v < vecs_.size(); ++v) {
      // Also the tiles whose rows divide the first row variable's extent (no tail guard).
      const auto rows_of = rows_for(vecs_[v]);
      const std::int64_t er = rows_of.empty() ? 1 : op_.var(rows_of.front()).extent;
      auto divisor_upto = [&](std::int64_t most) {
        for (std::int64_t d = most; d > 1; --d)
          if (er % d == 0) return d;
        return most;
      };
      std::vector<std::pair<std::int64_t, std::int64_t>> tiles;  // (vectors, rows)
      if (lanes_ == 8)
        tiles = {{1, 8}, {2, 6}, {2, 4}, {1, divisor_upto(8)}, {2, divisor_upto(7)}};
      else
        tiles = {{2, 12}, {4, 6}, {3, 8}, {2, 6}, {2, divisor_upto(14)}, {4, divisor_upto(7)}};
      for (const auto& [vectors, rows] : tiles) {
        const std::int64_t lanes = vectors * lanes_;
        Config c(knobs_.size(), 0);
        c[at("vec_var")] = static_cast<int>(v);
        const int vt = choice(at("vec_tile"), lanes), rt = choice(at("row_tile"), rows);
        if (vt < 0 || rt < 0) continue;
        c[at("vec_tile")] = vt;
        c[at("row_tile")] = rt;
        for (const auto& in : inputs_) {
          const std::size_t k = at("pack_" + in);
          int level = 0;
          for (const auto& a : op_.inputs)
            if (a.tensor == in && strided_in(a, vecs_[v])) level = 3;
          if (level == 0 && knobs_[k].choices.size() > 4) level = 4;
          c[k] = level;
        }
        c[at("parallel")] = static_cast<int>(knobs_[at("parallel")].choices.size()) > 1 ? 1 : 0;
        if (admissible(c) && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
      }
    }
    // Cache-blocked 6x16 tiles (GEMM's NC x KC panel, BLIS order): without them the first
    // candidates of a large operator stream every operand from memory for each tile, seconds a
    // call at 2048^3, and the budget is spent before the search finds the blocking itself.
    std::vector<Config> blocked = blocked_seeds(at, choice);
    std::int64_t bytes = 0;
    for (const auto& t : op_.tensors) bytes += t.numel() * static_cast<std::int64_t>(dtype_size(t.dtype));
    // Past L3's reach (a few MiB per core here) they go first; below it they come after.
    if (bytes > (8 << 20))
      out.insert(out.begin(), blocked.begin(), blocked.end());
    else
      out.insert(out.end(), blocked.begin(), blocked.end());
    // Variants of every seed, first: strided taps with the rows' stride phase split off; and
    // weights too large for L2 (ResNet's c4, c5) swept over every pixel per panel.
    auto variants = [&](const std::string& knob) {
      const auto k = optional_at(knob);
      if (!k) return;
      std::vector<Config> more;
      for (Config c : out) {
        c[*k] = 1;
        if (admissible(c) && std::find(more.begin(), more.end(), c) == more.end()) more.push_back(c);
      }
      out.insert(out.begin(), more.begin(), more.end());
    };
    variants("row_phase");
    // Weights: inputs indexed by no spatial variable but the vector candidates.
    std::int64_t weight_bytes = 0;
    for (const auto& a : op_.inputs) {
      bool pixels = false;
      for (const auto& x : op_.spatial_vars())
        for (const auto& ix : a.index)
          pixels = pixels || (ix.uses(x) && std::find(vecs_.begin(), vecs_.end(), x) == vecs_.end());
      const Tensor& t = op_.tensor(a.tensor);
      if (!pixels) weight_bytes = std::max(weight_bytes, t.numel() * static_cast<std::int64_t>(dtype_size(t.dtype)));
    }
    if (weight_bytes > (1 << 20)) variants("outer_inside");
    return out;
  }

  // Each vector dimension of 512 or more in blocks of 256 and 512 columns, the largest
  // reduction split by 256 and hoisted above the row and column tiles, the other inputs read in
  // place or packed once. The inputs read along the vector dimension are packed per panel (at
  // the hoisted reduction), or once where spatial loops around the blocks would repack the
  // panel on every iteration (a convolution's rows). Tiles of two vectors by 6 rows (AVX2), or
  // of four by 6 and two by 12 (AVX-512); of a short row extent (< 64), its largest divisor up
  // to that many rows (7, 14: no tail). With threads, each in parallel over the blocks and
  // over the row tiles inside a block.
  template <class At, class Choice>
  std::vector<Config> blocked_seeds(At at, Choice choice) const {
    std::vector<Config> out;
    const int ks = choice(at("red_split"), 256);
    if (ks < 0) return out;
    std::vector<std::pair<std::int64_t, std::int64_t>> shapes{{2, 6}};  // (vectors, rows)
    if (lanes_ == 16) shapes = {{4, 6}, {2, 12}};
    for (std::size_t v = 0; v < vecs_.size(); ++v)
      for (const auto& [vectors, most_rows] : shapes) {
        const auto rows = rows_for(vecs_[v]);
        const int vt = choice(at("vec_tile"), vectors * lanes_);
        if (rows.empty() || vt < 0) continue;
        const std::int64_t er = op_.var(rows.front()).extent;
        std::int64_t tu = most_rows;
        if (er < 64)
          for (std::int64_t d = most_rows == 6 ? 7 : 14; d > 1; --d)
            if (er % d == 0) {
              tu = d;
              break;
            }
        const int rt = choice(at("row_tile"), tu);
        bool around = false;  // spatial loops outside the blocks (neither V nor the rows)
        for (const auto& x : op_.spatial_vars())
          around = around || (x != vecs_[v] && x != rows.front() && op_.var(x).extent > 1);
        for (std::int64_t block : {256, 512}) {
          const int vb = choice(at("vec_block"), block);
          if (vb < 0 || rt < 0 || op_.var(vecs_[v]).extent < 2 * block) continue;
          for (int other_level : {0, 3}) {
            Config c(knobs_.size(), 0);
            c[at("vec_var")] = static_cast<int>(v);
            c[at("vec_tile")] = vt;
            c[at("row_tile")] = rt;
            c[at("vec_block")] = vb;
            c[at("red_split")] = ks;
            c[at("red_hoist")] = 1;
            for (const auto& in : inputs_) {
              const std::size_t k = at("pack_" + in);
              bool by_vec = false, strided = false;
              for (const auto& a : op_.inputs)
                if (a.tensor == in) {
                  strided = strided || strided_in(a, vecs_[v]);
                  for (const auto& ix : a.index) by_vec = by_vec || ix.uses(vecs_[v]);
                }
              c[k] = knobs_[k].choices.size() > 4 ? 4 : by_vec ? (around || strided ? 3 : 2) : other_level;
            }
            c[at("parallel")] = static_cast<int>(knobs_[at("parallel")].choices.size()) > 1 ? 1 : 0;
            if (admissible(c) && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
            // With threads, also the threads sharing each block's panel and splitting its rows.
            if (knobs_[at("parallel")].choices.size() > 3) {
              c[at("parallel")] = 3;
              if (admissible(c) && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
            }
          }
        }
      }
    return out;
  }

  // Knob values, then the static features of the nest the config expands to (NaN where a
  // transformation refuses it: the validity model learns what that pattern means).
  std::vector<float> visible_features(const Config& c) const override {
    std::vector<float> f = Space::visible_features(c);
    std::vector<float> nest;
    try {
      nest = nest_features(replay(op_, trace(c)));
    } catch (const Error&) {
      nest.assign(nest_feature_names().size(), std::numeric_limits<float>::quiet_NaN());
    }
    f.insert(f.end(), nest.begin(), nest.end());
    return f;
  }

 private:
  // The divisor through which some input reads spatial variable `x`, when it divides x's
  // extent (a transposed convolution's stride); 0 otherwise.
  std::int64_t phase_of(const std::string& x) const {
    for (const auto& a : op_.inputs)
      for (const auto& e : a.index)
        if (e.divisor > 1 && e.uses(x) && op_.var(x).extent % e.divisor == 0 && op_.var(x).extent > e.divisor)
          return e.divisor;
    return 0;
  }
  const std::string& vec_of(const Config& c) const { return vecs_.at(static_cast<std::size_t>(c[0])); }
  // Whether the config's loops have a V block or a hoisted reduction above the tiles (as trace()
  // expands them: a block narrower than two tiles or as wide as V is none).
  bool blocked(const Config& c) const {
    const std::int64_t ev = op_.var(vec_of(c)).extent, tv = vec_tile(c);
    const std::int64_t nb = knobs_[2].choices.at(static_cast<std::size_t>(c[2])) / tv * tv;
    const bool block = tv < ev && nb > tv && nb < ev;
    const bool hoist = knobs_[5].choices.at(static_cast<std::size_t>(c[5])) > 0 && c[6] == 1;
    return block || hoist;
  }
  // The vector tile, at most the vector dimension rounded up to whole vectors.
  std::int64_t vec_tile(const Config& c) const {
    const std::int64_t ev = op_.var(vec_of(c)).extent;
    return std::min(knobs_[1].choices.at(static_cast<std::size_t>(c[1])), std::max<std::int64_t>(round_up(ev), 1));
  }
  std::int64_t round_up(std::int64_t e) const { return (e + lanes_ - 1) / lanes_ * lanes_; }
  // Accumulator vectors a register tile may hold (the target's budget, VectorRegisters).
  std::int64_t max_accumulators() const { return vectors_.accumulators(); }
  std::size_t parallel_knob_ = 0;
  std::vector<std::string> rows_for(const std::string& vec) const {
    std::vector<std::string> r;
    for (const auto& x : op_.spatial_vars())
      if (x != vecs_.front() && op_.var(x).extent > 1) r.push_back(x == vec ? vecs_.front() : x);
    return r;
  }
  // The copy nests of packs placed outside the parallel loop (once, or at a hoisted reduction
  // above it), and the output's zeroing and epilogue sweeps where they stay separate nests,
  // would run on one thread while the others wait: split each one's outermost loop with more
  // than one iteration across the threads as well.
  void parallelize_copies(Trace& t) const {
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

  // Whether `v` indexes the access anywhere but the last dimension with stride 1.
  static bool strided_in(const Access& a, const std::string& v) {
    for (std::size_t d = 0; d < a.index.size(); ++d) {
      const std::int64_t c = a.index[d].coeff(v);
      if (c != 0 && (d + 1 != a.index.size() || c != 1)) return true;
    }
    return false;
  }
  // Whether some read of `tensor` in the untransformed nest indexes outside it (padding).
  static bool reads_outside(const LoopNest& nest, const std::string& tensor) {
    const auto& shape = nest.op.tensor(tensor).shape;
    for (const auto& a : nest.op.inputs) {
      if (a.tensor != tensor) continue;
      for (std::size_t d = 0; d < a.index.size(); ++d) {
        if (a.index[d].divisor != 1) return false;  // a padded copy cannot serve a strided read
        const auto r = sched::range_of(nest, a.index[d]);
        if (r.lo < 0 || r.hi >= shape[d]) return true;
      }
    }
    return false;
  }

  Op op_;
  std::int64_t lanes_;  // f32 lanes of a vector: 8 (AVX2) or 16 (AVX-512)
  VectorRegisters vectors_;
  std::string red_;
  std::vector<std::string> vecs_, inputs_;  // vecs_: the natural vector dimension first
  // The index of an optional knob, if this op has it; its value in `c` (0 when absent).
  std::optional<std::size_t> optional_at(const std::string& name) const {
    for (std::size_t i = base_knobs_; i < knobs_.size(); ++i)
      if (knobs_[i].name == name) return i;
    return std::nullopt;
  }
  std::int64_t optional(const std::string& name, const Config& c) const {
    const auto i = optional_at(name);
    return i ? knobs_[*i].choices.at(static_cast<std::size_t>(c.at(*i))) : 0;
  }

  std::vector<Knob> knobs_;
  std::size_t base_knobs_ = 0;  // knobs_[base_knobs_...] are the optional ones
};

}  // namespace

std::unique_ptr<Space> make_cpu_space(const Op& op, int threads, VectorRegisters vectors) {
  if (vectors.lanes != 8 && vectors.lanes != 16)
    throw Error("cpu space: " + std::to_string(vectors.lanes) +
                " f32 lanes a vector; expected 8 (AVX2) or 16 (AVX-512)");
  return std::make_unique<CpuSpace>(op, threads, vectors);
}

}  // namespace attune
