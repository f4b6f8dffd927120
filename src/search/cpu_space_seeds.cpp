// The CPU space's seeds (cpu_space.hpp): the configs the tuning loop measures before any
// strategy proposes, the register tiles and cache blocks its code generator is known to run well.
#include <algorithm>
#include <utility>

#include "search/cpu_space.hpp"

namespace attune {

namespace {

// Weights past this size do not stay in a core's cache while the tiles sweep them (L2 is 1-2
// MiB per core on the machines here): the seeds then sweep each weight panel over every pixel
// (outer_inside), and block the reduction so that one pass's panel fits.
constexpr std::int64_t kSweptWeightBytes = std::int64_t{1} << 20;

// (vectors, rows) of the plain register tiles for lanes of `lanes` f32 and a first row variable
// of extent `er` (seed_configs says which).
std::vector<std::pair<std::int64_t, std::int64_t>> plain_tiles(std::int64_t lanes, std::int64_t er) {
  // Also the tiles whose rows divide the first row variable's extent (no tail guard).
  auto divisor_upto = [&](std::int64_t most) {
    for (std::int64_t d = most; d > 1; --d)
      if (er % d == 0) return d;
    return most;
  };
  if (lanes == 8) return {{1, 8}, {2, 6}, {2, 4}, {1, divisor_upto(8)}, {2, divisor_upto(7)}};
  return {{2, 12}, {4, 6}, {3, 8}, {2, 6}, {2, divisor_upto(14)}, {4, divisor_upto(7)}};
}

}  // namespace

// For each choice of the vector dimension, plain register tiles (rows x vectors: with AVX2's
// 8 lanes 8x1, 6x2 and 4x2, and up to 8x1 and 7x2 rows dividing the row extent; with
// AVX-512's 16 lanes and 32 registers 12x2, 6x4, 8x3 and 6x2, and up to 14x2 and 7x4 rows
// dividing the row extent), the rows along seed_row()'s variable: inputs that the vector
// dimension walks with a stride are packed once (so the tile's loads are contiguous), inputs
// read outside their bounds get the padded copy where it pays (pads()), and the outermost loop
// runs in parallel when there are threads for it. Then the cache-blocked seeds (below), and last
// the padded seeds' in-place twins (append_in_place_variants()); for large weights read in
// place, the swept seeds' twins with the reduction blocked go first of all
// (prepend_reduction_blocked_variants()).
std::vector<Config> CpuSpace::seed_configs() const {
  std::vector<Config> out = register_tile_seeds();
  // Cache-blocked 6x16 tiles (GEMM's NC x KC panel, BLIS order): without them the first
  // candidates of a large operator stream every operand from memory for each tile, seconds a
  // call at 2048^3, and the budget is spent before the search finds the blocking itself.
  std::vector<Config> blocked = blocked_seeds();
  std::int64_t bytes = 0;
  for (const auto& t : op_.tensors) bytes += t.numel() * static_cast<std::int64_t>(dtype_size(t.dtype));
  // Past L3's reach (a few MiB per core here) they go first; below it they come after.
  if (bytes > (8 << 20))
    out.insert(out.begin(), blocked.begin(), blocked.end());
  else
    out.insert(out.end(), blocked.begin(), blocked.end());
  // Variants of every seed, first: strided taps with the rows' stride phase split off; and
  // weights too large for L2 (ResNet's c4, c5) swept over every pixel per panel.
  prepend_variants(out, "row_phase");
  if (largest_weight().second > kSweptWeightBytes) prepend_variants(out, "outer_inside");
  append_in_place_variants(out);
  prepend_reduction_blocked_variants(out);
  return out;
}

std::vector<Config> CpuSpace::register_tile_seeds() const {
  std::vector<Config> out;
  for (std::size_t v = 0; v < vecs_.size(); ++v) {
    const auto rows_of = rows_for(vecs_[v]);
    const std::size_t row = seed_row(v);
    const std::int64_t er = rows_of.empty() ? 1 : op_.var(rows_of.at(row)).extent;
    for (const auto& [vectors, rows] : plain_tiles(lanes_, er)) {
      const std::int64_t lanes = vectors * lanes_;
      Config c(knobs_.size(), 0);
      c[knob_at("vec_var")] = static_cast<int>(v);
      c[knob_at("row_var")] = static_cast<int>(row);
      const int vt = choice_index(knob_at("vec_tile"), lanes), rt = choice_index(knob_at("row_tile"), rows);
      if (vt < 0 || rt < 0) continue;
      c[knob_at("vec_tile")] = vt;
      c[knob_at("row_tile")] = rt;
      for (const auto& in : inputs_) {
        const std::size_t k = knob_at("pack_" + in);
        int level = kInPlace;
        for (const auto& a : op_.inputs)
          if (a.tensor == in && strided_in(a, vecs_[v])) level = kPackOnce;
        if (level == kInPlace && pads(in, v)) level = kPackPadded;
        c[k] = level;
      }
      c[parallel_knob_] = outer_parallel_choice();
      push_admissible(out, c);
    }
  }
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
std::vector<Config> CpuSpace::blocked_seeds() const {
  std::vector<Config> out;
  const int ks = choice_index(knob_at("red_split"), 256);
  if (ks < 0) return out;
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes{{2, 6}};  // (vectors, rows)
  if (lanes_ == 16) shapes = {{4, 6}, {2, 12}};
  for (std::size_t v = 0; v < vecs_.size(); ++v)
    for (const auto& [vectors, most_rows] : shapes) add_blocked_seeds(out, v, vectors, most_rows, ks);
  return out;
}

// The blocked seeds of vector dimension vecs_[v] with tiles of `vectors` by up to `most_rows`;
// `ks` is red_split's choice of 256.
void CpuSpace::add_blocked_seeds(std::vector<Config>& out, std::size_t v, std::int64_t vectors, std::int64_t most_rows,
                                 int ks) const {
  const auto rows = rows_for(vecs_[v]);
  const int vt = choice_index(knob_at("vec_tile"), vectors * lanes_);
  if (rows.empty() || vt < 0) return;
  const std::size_t row = seed_row(v);
  const std::int64_t er = op_.var(rows.at(row)).extent;
  std::int64_t tu = most_rows;
  if (er < 64)
    for (std::int64_t d = most_rows == 6 ? 7 : 14; d > 1; --d)
      if (er % d == 0) {
        tu = d;
        break;
      }
  const int rt = choice_index(knob_at("row_tile"), tu);
  bool around = false;  // spatial loops outside the blocks (neither V nor the rows)
  for (const auto& x : op_.spatial_vars())
    around = around || (x != vecs_[v] && x != rows.at(row) && op_.var(x).extent > 1);
  for (std::int64_t block : {256, 512}) {
    const int vb = choice_index(knob_at("vec_block"), block);
    if (vb < 0 || rt < 0 || op_.var(vecs_[v]).extent < 2 * block) continue;
    for (int other_level : {kInPlace, kPackOnce}) {
      Config c(knobs_.size(), 0);
      c[knob_at("vec_var")] = static_cast<int>(v);
      c[knob_at("row_var")] = static_cast<int>(row);
      c[knob_at("vec_tile")] = vt;
      c[knob_at("row_tile")] = rt;
      c[knob_at("vec_block")] = vb;
      c[knob_at("red_split")] = ks;
      c[knob_at("red_hoist")] = 1;
      for (const auto& in : inputs_) {
        const std::size_t k = knob_at("pack_" + in);
        bool by_vec = false, strided = false;
        for (const auto& a : op_.inputs)
          if (a.tensor == in) {
            strided = strided || strided_in(a, vecs_[v]);
            by_vec = by_vec || reads_along(a, vecs_[v]);
          }
        c[k] = pads(in, v) ? kPackPadded : by_vec ? (around || strided ? kPackOnce : kPackAtOuterTile) : other_level;
      }
      c[parallel_knob_] = outer_parallel_choice();
      push_admissible(out, c);
      // With threads, also the threads sharing each block's panel and splitting its rows.
      if (knobs_[parallel_knob_].choices.size() > 3) {
        c[parallel_knob_] = 3;
        push_admissible(out, c);
      }
    }
  }
}

// The row variable of vector dimension vecs_[v]'s seeds (an index into rows_for()): the one whose
// register tile loads least per reduction step, then the one nearest the output's innermost
// index. A tile of R rows by W vectors loads, per step, each input it reads W times if the
// vector dimension indexes it, times R if the rows do. Rows along a variable that only the
// weights read cost R broadcasts; along one the vector dimension's input reads too, R x W
// loads: an NCHW convolution vectorised along its columns takes its rows from the output
// channels, not the image rows. Where the loads tie (every NHWC convolution: only the image is
// read by either pixel variable), rows along the output's columns read the image's neighbouring
// pixels, where rows along its rows read lines apart: on dep_1, dep_2, rn18_nhwc_1x1, c3d_1 and
// attn_scores the best kernels found took their rows there; the seeds took the image rows, and
// dep_2's best seed ran at 0.72 of its best.
std::size_t CpuSpace::seed_row(std::size_t v) const {
  const auto rows = rows_for(vecs_[v]);
  auto loads = [&](const std::string& x) {
    int n = 0;
    for (const auto& a : op_.inputs)
      if (reads_along(a, x)) n += reads_along(a, vecs_[v]) ? 2 : 1;  // R x W, or R (W = 2: any tile of several vectors)
    return n;
  };
  // The stride of x in the output: the product of the extents inside the index that uses it.
  auto stride = [&](const std::string& x) {
    const Tensor& out = op_.tensor(op_.output.tensor);
    std::int64_t s = 1;
    for (std::size_t d = op_.output.index.size(); d-- > 0;) {
      if (op_.output.index[d].uses(x)) return s;
      s *= out.shape.at(d);
    }
    return s;
  };
  std::size_t best = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const int li = loads(rows[i]), lb = loads(rows[best]);
    if (li < lb || (li == lb && stride(rows[i]) < stride(rows[best]))) best = i;
  }
  return best;
}

// Whether the seeds of vector dimension vecs_[v] read `in` through its zero-padded copy: where
// they read outside it, and either the vector dimension does (admissible() wants a copy then)
// or each element is read often enough to repay copying it (kPadReuse multiply-adds per
// element). A depthwise convolution reads each input element 9 times at stride 1 and about 2
// at stride 2: in place, its kernels ran at 1.0x the best on dep_1 and dep_2, padded at 1.7x
// and 2.4x at best (every seed of dep_2 was padded, and the fastest ran at 6x the best). A
// dense convolution reads each element once per output channel and tap (576 times on
// rn50_c2_3x3), and the copy spares the interior its bounds checks; its in-place twin is a
// seed too, after it (append_in_place_variants()).
bool CpuSpace::pads(const std::string& in, std::size_t v) const {
  constexpr double kPadReuse = 16;
  if (choice_index(knob_at("pack_" + in), kPackPadded) < 0) return false;  // no padded copy: reads stay inside
  if (outside_along_.at(v).count(in)) return true;
  return static_cast<double>(op_.macs()) >= kPadReuse * static_cast<double>(op_.tensor(in).numel());
}

// Appends, after every seed, each one's variant reading its padded inputs in place (kPackPadded
// -> kInPlace) where that is admissible: where pads() copies an input for its reuse alone, whether
// the copy pays differs between shapes of one family and between machines. rn50_c2_3x3's best
// kernels on a Zen 5 read the image in place, and no padded seed led the search there; on a
// Xeon with AVX-512 the in-place twins of the register-tile seeds ran at 0.99, 0.97 and 1.00 of
// the best of 40 evolutionary trials on rn50_c2, c3 and c4, the padded ones at 1.00, 1.00 and
// 0.95, and rn50_c2's best of 300 trials read in place again (transfer-2026-12-07-xeon.md).
// Appended, so the seeds measured first are unchanged.
void CpuSpace::append_in_place_variants(std::vector<Config>& seeds) const {
  add_variants(
      seeds,
      [&](Config& c) {
        bool padded = false;
        for (const auto& in : inputs_)
          if (int& level = c[knob_at("pack_" + in)]; level == kPackPadded) level = kInPlace, padded = true;
        return padded;
      },
      false);
}

// Puts before the seeds, of each seed that sweeps its weight panels over every pixel
// (outer_inside) and reads the weights in place along its vector dimension, the variant with
// the reduction split and hoisted above the tiles so that one pass reads at most
// kSweptWeightBytes of them. Read in place (a transposed or dilated NHWC convolution's
// W[r, s, c, k], the vector dimension k innermost), one vector tile's panel is a slice of every
// row of the whole tensor, so its cache lines span all of it; packed (an NCHW convolution's
// weights, strided along k), the panel is contiguous and small. Measured on a Xeon
// (evolutionary, seed 1, the seeds first; the variants' best against the earlier seeds' best):
// t2d_1 1.64x, t2d_2 1.22x and dil_2 1.48x faster, and the best kernels of every 300-trial run
// of t2d_2 split the channels so (by 128 of 256); the same variants of rn50_c4's seeds that
// pack the weights ran at 0.79x, and of those that broadcast them (vectorised along the pixels)
// 6x slower. First, because they were the faster on every op that has them: appended, every
// strategy reached 95% of t2d_2's best of 300 trials at the first of them, the 23rd measurement.
void CpuSpace::prepend_reduction_blocked_variants(std::vector<Config>& seeds) const {
  const auto inside = optional_at("outer_inside");
  const auto [weight, bytes] = largest_weight();
  if (!inside || red_.empty() || bytes <= kSweptWeightBytes) return;
  const std::size_t split = knob_at("red_split"), pack = knob_at("pack_" + weight);
  const std::int64_t extent = op_.var(red_).extent;
  int choice = -1;  // the largest inner extent whose share of the weights fits
  for (std::size_t i = 0; i < knobs_[split].choices.size(); ++i) {
    const std::int64_t t = knobs_[split].choices[i];
    if (t > 0 && extent % t == 0 && bytes / extent * t <= kSweptWeightBytes) choice = static_cast<int>(i);
  }
  if (choice < 0) return;
  add_variants(
      seeds,
      [&](Config& c) {
        bool panel = false;  // the vector dimension walks the weights (else it broadcasts them)
        for (const auto& a : op_.inputs) panel = panel || (a.tensor == weight && reads_along(a, vec_of(c)));
        if (!panel || c[*inside] != 1 || c[split] != 0 || c[pack] != kInPlace) return false;
        c[split] = choice;
        c[knob_at("red_hoist")] = 1;
        return true;
      },
      true);
}

// Puts before the seeds each one's variant with optional knob `knob` at 1 (when the op has the
// knob and the variant is admissible).
void CpuSpace::prepend_variants(std::vector<Config>& seeds, const std::string& knob) const {
  const auto k = optional_at(knob);
  if (!k) return;
  add_variants(
      seeds,
      [&](Config& c) {
        const bool changed = c[*k] != 1;
        c[*k] = 1;
        return changed;
      },
      true);
}

// Adds each seed's variant that `edit` makes of it (edit says whether it changed anything),
// when admissible and not a seed already: before the seeds or after them, in the seeds' order.
void CpuSpace::add_variants(std::vector<Config>& seeds, const std::function<bool(Config&)>& edit, bool before) const {
  std::vector<Config> more;
  for (Config c : seeds)
    if (edit(c) && std::find(seeds.begin(), seeds.end(), c) == seeds.end()) push_admissible(more, c);
  seeds.insert(before ? seeds.begin() : seeds.end(), more.begin(), more.end());
}

// The largest weight and its bytes: an input indexed by no spatial variable but the vector
// candidates ("" and 0 without one).
std::pair<std::string, std::int64_t> CpuSpace::largest_weight() const {
  std::pair<std::string, std::int64_t> largest{"", 0};
  for (const auto& a : op_.inputs) {
    bool pixels = false;
    for (const auto& x : op_.spatial_vars())
      pixels = pixels || (reads_along(a, x) && std::find(vecs_.begin(), vecs_.end(), x) == vecs_.end());
    const Tensor& t = op_.tensor(a.tensor);
    const std::int64_t bytes = t.numel() * static_cast<std::int64_t>(dtype_size(t.dtype));
    if (!pixels && bytes > largest.second) largest = {a.tensor, bytes};
  }
  return largest;
}

// The parallel knob's choice for a seed: the outermost loop when there are threads for it.
int CpuSpace::outer_parallel_choice() const { return knobs_[parallel_knob_].choices.size() > 1 ? 1 : 0; }

// Appends `c` unless it is inadmissible or already there.
void CpuSpace::push_admissible(std::vector<Config>& out, const Config& c) const {
  if (admissible(c) && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
}

}  // namespace attune
