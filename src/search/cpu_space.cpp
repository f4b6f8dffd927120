// The CPU schedule space's knobs (cpu_space.hpp says what the space is): which vector
// dimensions, tiles, splits, packs and parallel loops a config may choose, which configs fit the
// registers, and what a cost model sees of one.
#include "search/cpu_space.hpp"

#include <algorithm>
#include <limits>

#include "ir/error.hpp"
#include "ir/fold_epilogue.hpp"
#include "model/features.hpp"
#include "schedule/analysis.hpp"

namespace attune {

CpuSpace::CpuSpace(const Op& op, int threads, VectorRegisters vectors)
    : op_(op), threads_(threads), lanes_(vectors.lanes), vectors_(vectors) {
  choose_vector_dimensions();
  for (const auto& r : op.reduction_vars())
    if (red_.empty() || op.var(r).extent > op.var(red_).extent) red_ = r;
  // The contraction's factors (what packing can copy), not what only the epilogue reads.
  for (const auto& a : op.inputs)
    if (std::find(inputs_.begin(), inputs_.end(), a.tensor) == inputs_.end()) inputs_.push_back(a.tensor);

  add_vector_knobs();
  add_row_knobs();
  add_reduction_and_order_knobs();
  add_pack_knobs();
  add_parallel_knob(threads);
  // Optional knobs follow, each only where it can matter; a record written before one
  // existed reads back with it at choice 0 (config_from_record), which is the old schedule.
  base_knobs_ = knobs_.size();
  add_optional_knobs();
}

// V: the output's last index when it is a plain variable (else the last spatial var).
void CpuSpace::choose_vector_dimensions() {
  const Op& op = op_;
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
      for (const auto& a : op.inputs) shares = shares || (reads_along(a, natural) && reads_along(a, x));
      if (!shares) vecs_.push_back(x);
    }
}

void CpuSpace::add_vector_knobs() {
  std::int64_t ev = 0;
  std::string names;
  for (const auto& v : vecs_) ev = std::max(ev, op_.var(v).extent), names += (names.empty() ? "" : "|") + v;
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
}

void CpuSpace::add_row_knobs() {
  // Every choice of V leaves the same number of row candidates (the other spatial vars).
  std::size_t n_rows = 0;
  for (const auto& x : op_.spatial_vars()) n_rows += x != vecs_.front() && op_.var(x).extent > 1;
  Knob rv{"row_var", {}, "spatial variable of the unrolled rows"};
  for (std::size_t i = 0; i < std::max<std::size_t>(n_rows, 1); ++i) rv.choices.push_back(static_cast<std::int64_t>(i));
  knobs_.push_back(rv);
  // 7 came last (it divides 56, 28, 14 and 7, the ResNet widths), then 12 and 14 (AVX-512's
  // 32 registers hold 12 or 14 rows of two vectors): appended, so the older choices keep
  // their indices and "cpu-v2" records still read back.
  knobs_.push_back({"row_tile", {1, 2, 3, 4, 5, 6, 8, 7, 12, 14}, "rows in the register tile"});
}

void CpuSpace::add_reduction_and_order_knobs() {
  Knob rs{"red_split", {0}, "inner extent of the split of reduction " + red_};
  if (!red_.empty())
    for (std::int64_t t : {8, 16, 32, 64, 128, 256, 512})
      if (t < op_.var(red_).extent) rs.choices.push_back(t);
  knobs_.push_back(rs);
  knobs_.push_back({"red_hoist", {0, 1}, "outer part of the split reduction above the spatial tiles"});
  knobs_.push_back({"tile_order", {0, 1}, "0: rows tile outside the vector tile, 1: inside"});
}

void CpuSpace::add_pack_knobs() {
  // Level 4 (a padded copy in the tensor's own layout) only where the read leaves the tensor.
  const LoopNest initial = initial_nest(op_);
  for (const auto& t : inputs_) {
    Knob k{"pack_" + t,
           {kInPlace, kPackAtTile, kPackAtOuterTile, kPackOnce},
           "pack " + t + ": 0 no, 1 at the tile, 2 at the outer tile, 3 once"};
    if (reads_outside(initial, t)) k.choices.push_back(kPackPadded), k.help += ", 4 a zero-padded copy";
    knobs_.push_back(k);
  }
  // The inputs each vector dimension reads outside their bounds, which admissible() keeps
  // packed (those it walks with a stride are packed by the rule before it).
  for (const auto& v : vecs_) {
    outside_along_.emplace_back();
    for (const auto& a : op_.inputs)
      if (reads_outside(initial, a.tensor, v)) outside_along_.back().insert(a.tensor);
  }
}

void CpuSpace::add_parallel_knob(int threads) {
  // 3 (appended: older records keep their choices) is BLIS's ic loop: the threads share the
  // cache block's packed panel and split its row tiles, instead of taking whole blocks each
  // (two blocks of 512 and 256 columns split 2:1; each thread would stream all of the other
  // input through its own panel).
  knobs_.push_back({"parallel", threads > 1 ? std::vector<std::int64_t>{0, 1, 2, 3} : std::vector<std::int64_t>{0},
                    "0 serial, 1 outermost spatial loop, 2 fused with its child, 3 the outermost one inside the "
                    "cache block and hoisted reduction"});
  parallel_knob_ = knobs_.size() - 1;
}

void CpuSpace::add_optional_knobs() {
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

// The accumulator tile must fit the vector registers (16 for AVX2, 32 for AVX-512) with room
// for operands, or the code generator cannot keep it there and the micro-kernel runs from
// memory. And an input the vector dimension walks with a stride must be packed (choices 1-3,
// which lay the vector dimension innermost): read in place, or from the padded copy in its own
// layout, each vector load is a gather. Such kernels ran at 0.007 of their op's best (two of
// 900 records of 12 ops), and one knob away from a convolution's seeds (its weights, K x C x 3
// x 3, read along K unpacked) 3-5x slower than the seed, which a model that never saw
// a gather (the cross-task models of other families) ranked first.
bool CpuSpace::admissible(const Config& c) const {
  const std::int64_t tv = vec_tile(c);
  const std::int64_t tu = rows_for(vec_of(c)).empty() ? 1 : knobs_[4].choices.at(static_cast<std::size_t>(c[4]));
  const std::int64_t vb = knobs_[2].choices.at(static_cast<std::size_t>(c[2]));
  // A block must hold at least two vector tiles (else it is no block, spelled otherwise).
  if (tu * ((tv + lanes_ - 1) / lanes_) > max_accumulators() || (vb != 0 && vb < 2 * tv)) return false;
  for (const auto& a : op_.inputs) {
    if (!strided_in(a, vec_of(c))) continue;
    const std::int64_t pack = value(c, "pack_" + a.tensor);
    if (pack == kInPlace || pack == kPackPadded) return false;
  }
  // An input the vector dimension reads outside its bounds (a convolution's padded columns)
  // must be copied (packed; padded or not, the copy holds the zeros): read in place, every
  // vector of the tile checks its lanes, a loop gcc leaves scalar. rn50_c2_3x3 vectorised
  // along its columns (~1400 records): the fastest kernel reading the input in place ran at
  // 11x the op's best, the fastest with a copy at 1.2-2.3x.
  for (const auto& t : outside_along_.at(static_cast<std::size_t>(c[0])))
    if (value(c, "pack_" + t) == kInPlace) return false;
  // Parallel inside the cache block needs a block or a hoisted reduction to be inside of
  // (else it is choice 1 spelled otherwise).
  const auto& par = knobs_[parallel_knob_].choices;
  if (par.at(static_cast<std::size_t>(c[parallel_knob_])) == 3) return blocked(c);
  return true;
}

// Knob values, then the static features of the nest the config expands to (NaN where a
// transformation refuses it: the validity model learns what that pattern means).
std::vector<float> CpuSpace::nest_part(const Config& c) const {
  try {
    return nest_features(replay(op_, trace(c)));
  } catch (const Error&) {
    return std::vector<float>(nest_feature_names().size(), std::numeric_limits<float>::quiet_NaN());
  }
}

std::vector<float> CpuSpace::visible_features(const Config& c) const {
  std::vector<float> f = Space::visible_features(c);
  const std::vector<float> nest = nest_part(c);
  f.insert(f.end(), nest.begin(), nest.end());
  return f;
}

// The nest's features, then the threads and the share of them the parallel loop keeps busy
// (its extent over the threads' rounds: 1 when it divides evenly, 0.6 for 3 iterations on 5).
std::vector<float> CpuSpace::transfer_features(const Config& c) const {
  std::vector<float> f = nest_part(c);
  const float log_extent = f.at(4);  // log_parallel_extent: log2(1 + extent) (nest_feature_names)
  const double extent =
      log_extent == log_extent ? std::round(std::exp2(static_cast<double>(log_extent)) - 1.0) : 0.0;
  const double t = std::max(1, threads_);
  const double rounds = std::ceil(extent / t);
  f.push_back(static_cast<float>(std::log2(t)));
  f.push_back(static_cast<float>(rounds > 0 ? extent / (rounds * t) : 1.0 / t));
  return f;
}

std::size_t CpuSpace::knob_at(const std::string& name) const {
  for (std::size_t i = 0; i < knobs_.size(); ++i)
    if (knobs_[i].name == name) return i;
  throw Error("no knob " + name);
}

std::int64_t CpuSpace::value(const Config& c, const std::string& name) const {
  const std::size_t i = knob_at(name);
  return knobs_[i].choices.at(static_cast<std::size_t>(c[i]));
}

int CpuSpace::choice_index(std::size_t k, std::int64_t value) const {
  const auto& ch = knobs_[k].choices;
  const auto it = std::find(ch.begin(), ch.end(), value);
  return it == ch.end() ? -1 : static_cast<int>(it - ch.begin());
}

std::optional<std::size_t> CpuSpace::optional_at(const std::string& name) const {
  for (std::size_t i = base_knobs_; i < knobs_.size(); ++i)
    if (knobs_[i].name == name) return i;
  return std::nullopt;
}

std::int64_t CpuSpace::optional(const std::string& name, const Config& c) const {
  const auto i = optional_at(name);
  return i ? knobs_[*i].choices.at(static_cast<std::size_t>(c.at(*i))) : 0;
}

// The spatial variables that may hold the rows when `vec` is V: all but V of extent > 1, with
// the natural V in the place of `vec` when `vec` is another one.
std::vector<std::string> CpuSpace::rows_for(const std::string& vec) const {
  std::vector<std::string> r;
  for (const auto& x : op_.spatial_vars())
    if (x != vecs_.front() && op_.var(x).extent > 1) r.push_back(x == vec ? vecs_.front() : x);
  return r;
}

// The vector tile, at most the vector dimension rounded up to whole vectors.
std::int64_t CpuSpace::vec_tile(const Config& c) const {
  const std::int64_t ev = op_.var(vec_of(c)).extent;
  return std::min(knobs_[1].choices.at(static_cast<std::size_t>(c[1])), std::max<std::int64_t>(round_up(ev), 1));
}

// The columns of the config's V block, in whole vector tiles; 0 when it makes none (a block
// no wider than one tile, or as wide as V).
std::int64_t CpuSpace::block_columns(const Config& c) const {
  const std::int64_t ev = op_.var(vec_of(c)).extent, tv = vec_tile(c);
  const std::int64_t nb = knobs_[2].choices.at(static_cast<std::size_t>(c[2])) / tv * tv;
  return tv < ev && nb > tv && nb < ev ? nb : 0;
}

// Whether the config's loops have a V block or a hoisted reduction above the tiles (as trace()
// expands them).
bool CpuSpace::blocked(const Config& c) const {
  const bool hoist = knobs_[5].choices.at(static_cast<std::size_t>(c[5])) > 0 && c[6] == 1;
  return block_columns(c) > 0 || hoist;
}

// The divisor through which some input reads spatial variable `x`, when it divides x's
// extent (a transposed convolution's stride); 0 otherwise.
std::int64_t CpuSpace::phase_of(const std::string& x) const {
  for (const auto& a : op_.inputs)
    for (const auto& e : a.index)
      if (e.divisor > 1 && e.uses(x) && op_.var(x).extent % e.divisor == 0 && op_.var(x).extent > e.divisor)
        return e.divisor;
  return 0;
}

// Whether some index of the access uses `v`.
bool CpuSpace::reads_along(const Access& a, const std::string& v) {
  return std::any_of(a.index.begin(), a.index.end(), [&](const AffineExpr& ix) { return ix.uses(v); });
}

// Whether `v` indexes the access anywhere but the last dimension with stride 1.
bool CpuSpace::strided_in(const Access& a, const std::string& v) {
  for (std::size_t d = 0; d < a.index.size(); ++d) {
    const std::int64_t c = a.index[d].coeff(v);
    if (c != 0 && (d + 1 != a.index.size() || c != 1)) return true;
  }
  return false;
}

// Whether some read of `tensor` in the untransformed nest indexes outside it (padding); with
// `along`, in a dimension whose index uses that variable.
bool CpuSpace::reads_outside(const LoopNest& nest, const std::string& tensor, const std::string& along) {
  const auto& shape = nest.op.tensor(tensor).shape;
  for (const auto& a : nest.op.inputs) {
    if (a.tensor != tensor) continue;
    for (std::size_t d = 0; d < a.index.size(); ++d) {
      if (a.index[d].divisor != 1) return false;  // a padded copy cannot serve a strided read
      if (!along.empty() && !a.index[d].uses(along)) continue;
      const auto r = sched::range_of(nest, a.index[d]);
      if (r.lo < 0 || r.hi >= shape[d]) return true;
    }
  }
  return false;
}

std::unique_ptr<Space> make_cpu_space(const Op& op, int threads, VectorRegisters vectors) {
  if (op.multi_stage()) {
    // A contraction with pointwise statements after it: the space of the contraction it folds
    // into (ir/fold_epilogue.hpp), whose traces replay on the task's op (schedule/loopnest.hpp).
    if (auto folded = fold_epilogue(op)) return make_cpu_space(*folded, threads, vectors);
    throw Error("cpu space: op '" + op.name + "' is a multi-stage op; its space is make_stage_space's");
  }
  if (vectors.lanes != 8 && vectors.lanes != 16)
    throw Error("cpu space: " + std::to_string(vectors.lanes) +
                " f32 lanes a vector; expected 8 (AVX2) or 16 (AVX-512)");
  return std::make_unique<CpuSpace>(op, threads, vectors);
}

}  // namespace attune
