// The schedule space of multi-stage ops (search/tuner.hpp, make_stage_space). Per stage k, over
// the nest of its compute statement ("s<k>." loops, schedule/loopnest.hpp):
//   s<k>_order   0: as written (spatial loops, then the reduced ones); 1: the innermost spatial
//                loop moved innermost, so that a contraction stage vectorises over its output
//   s<k>_vec     0, or the vector length: the innermost loop split by it and vectorised (a
//                reduction loop is vectorised with one accumulator per lane)
//   s<k>_par     how many outer spatial loops are fused into one parallel loop (0: serial); the
//                stage's init and mean nests follow the same choice
// except that a contraction stage (schedule/loopnest.hpp, contraction_stage: attention's two
// products) is a register-tiled micro-kernel, as the contraction space makes one
// (cpu_space_trace.cpp), with instead of order and vec:
//   s<k>_rows    the row tile: its second-to-last output loop split by it, the inner part unrolled
//   s<k>_cols    the column tile: its last output loop split by it, the inner part vectorised
//   s<k>_pack    1: each input the columns do not walk contiguously is packed at the stage's
//                outermost loop (K of Q*K^T)
// and the loops in the order: other output loops, rows.0, cols.0, the reductions, rows.1,
// cols.1; the tile accumulates in a local buffer (cache_write at the innermost outer loop).
// and per intermediate T, before those (the latest stage's first):
//   at_T         0: computed whole by its own nests; 1: inlined into its readers; 2 + q:
//                computed at depth q of the output loops of the last stage that reads it (not
//                its innermost output loop)
// A config expands step by step on the nest, and a step its transformation refuses is left
// out, so every config is a valid trace.
#include <algorithm>

#include "ir/error.hpp"
#include "schedule/analysis.hpp"
#include "schedule/loopnest.hpp"
#include "search/register_tile.hpp"
#include "search/tuner.hpp"

namespace attune {

namespace {

class StageSpace : public Space {
 public:
  StageSpace(const Op& op, int threads, VectorRegisters vectors)
      : op_(op), lanes_(std::max(1, vectors.lanes)), accumulators_(vectors.accumulators()) {
    const std::int64_t lanes = lanes_;
    for (std::size_t k = op.stages.size(); k-- > 0;) {
      const std::string& t = op.stages[k].out.tensor;
      if (k + 1 == op.stages.size()) continue;  // the output
      const std::size_t reader = last_reader(t);
      std::vector<std::int64_t> at{0, 1};
      std::int64_t depth = 0;
      for (const auto& v : op.stages[reader].vars) depth += v.reduction ? 0 : 1;
      // Not the innermost output loop: there a reduction would be recomputed per element.
      for (std::int64_t q = 0; q < std::min<std::int64_t>(depth - 1, 3); ++q) at.push_back(2 + q);
      placements_.push_back({t, reader});
      knobs_.push_back({"at_" + t, at, "0: its own nests; 1: inlined; 2+q: at depth q of its last reader"});
    }
    for (std::size_t k = 0; k < op.stages.size(); ++k) {
      const Stage& st = op.stages[k];
      const bool reduces = st.reduce != Reduce::none;
      const std::string p = "s" + std::to_string(k) + "_";
      first_knob_.push_back(knobs_.size());
      contraction_.push_back(contraction_stage(op, st));
      if (contraction_.back()) {
        knobs_.push_back({p + "rows", {1, 2, 4, 6, 8}, "row tile (second-to-last output loop), unrolled"});
        knobs_.push_back({p + "cols", {lanes, 2 * lanes, 4 * lanes}, "column tile (last output loop), vectorised"});
        knobs_.push_back({p + "pack", {0, 1}, "1: inputs not contiguous along the columns packed"});
      } else {
        knobs_.push_back({p + "order", reduces ? std::vector<std::int64_t>{0, 1} : std::vector<std::int64_t>{0},
                          "1: the innermost output loop innermost"});
        knobs_.push_back({p + "vec", {0, lanes, 2 * lanes, 4 * lanes}, "vector length of the innermost loop (0: none)"});
      }
      std::vector<std::int64_t> par{0};
      std::size_t spatial = 0;
      for (const auto& v : st.vars) spatial += v.reduction ? 0 : 1;
      if (threads > 1)
        for (std::int64_t n = 1; n <= std::min<std::int64_t>(2, static_cast<std::int64_t>(spatial)); ++n)
          par.push_back(n);
      knobs_.push_back({p + "par", par, "outer output loops fused into one parallel loop"});
    }
  }

  const std::vector<Knob>& knobs() const override { return knobs_; }

  // Two priors, measured first like any candidate: every stage in its own nests, and every
  // intermediate computed at its reader's deepest offered loop (rows of softmax and layernorm);
  // both with the longest vectors, the widest parallel loop and contraction stages as 8-row,
  // two-vector tiles with their inputs packed.
  std::vector<Config> seed_configs() const override {
    std::vector<Config> seeds;
    for (bool fused : {false, true}) {
      Config c(knobs_.size(), 0);
      for (std::size_t i = 0; i < knobs_.size(); ++i) {
        const std::string& n = knobs_[i].name;
        const int last = static_cast<int>(knobs_[i].choices.size()) - 1;
        if (n.rfind("at_", 0) == 0) c[i] = fused ? last : 0;
        if (n.ends_with("_vec") || n.ends_with("_par") || n.ends_with("_pack")) c[i] = last;
        if (n.ends_with("_cols")) c[i] = 1;
        if (n.ends_with("_rows"))  // the most rows of two vectors that fit the accumulators
          for (int j = 0; j <= last; ++j)
            if (knobs_[i].choices[j] * 2 <= accumulators_) c[i] = j;
      }
      seeds.push_back(std::move(c));
    }
    return seeds;
  }

  // A contraction stage's tile fits the registers that may accumulate.
  bool admissible(const Config& c) const override {
    for (std::size_t k = 0; k < op_.stages.size(); ++k) {
      if (!contraction_[k]) continue;
      const std::size_t i = first_knob_[k];
      const std::int64_t rows = knobs_[i].choices.at(c.at(i)), cols = knobs_[i + 1].choices.at(c.at(i + 1));
      if (rows * ((cols + lanes_ - 1) / lanes_) > accumulators_) return false;
    }
    return true;
  }
  std::string version() const override { return "stages-3"; }

  Trace trace(const Config& c) const override {
    Trace t;
    LoopNest nest = initial_nest(op_);
    auto step = [&](const Transform& x) {
      if (!applicable(nest, x)) return false;
      nest = apply(nest, x);
      t.steps.push_back(x);
      return true;
    };
    for (std::size_t i = 0; i < placements_.size(); ++i) {
      const auto& [tensor, reader] = placements_[i];
      const std::int64_t at = knobs_[i].choices.at(c.at(i));
      if (at == 1) step(Transform::compute_inline(tensor));
      if (at < 2) continue;
      std::int64_t q = at - 2;
      for (const auto& v : op_.stages[reader].vars)
        if (!v.reduction && q-- == 0) step(Transform::compute_at(tensor, "s" + std::to_string(reader) + "." + v.name));
    }
    for (std::size_t k = 0; k < op_.stages.size(); ++k) {
      const auto choice = [&](std::size_t i) {
        const std::size_t at = first_knob_[k] + i;
        return knobs_[at].choices.at(c.at(at));
      };
      const Stage& st = op_.stages[k];
      const std::string p = "s" + std::to_string(k) + ".";
      if (contraction_[k]) {
        const std::int64_t par = choice(3);
        tile_contraction(nest, st, p, choice(0), choice(1), choice(2) == 1, par, step);
        for (const std::string& prefix : {p + "init.", p + "mean."}) parallelize(nest, st, prefix, par, step);
        continue;
      }
      std::vector<std::string> spatial, order;
      for (const auto& v : st.vars) (v.reduction ? order : spatial).push_back(p + v.name);
      order.insert(order.begin(), spatial.begin(), spatial.end());
      if (choice(0) == 1 && order.back() != spatial.back()) {
        order.erase(std::find(order.begin(), order.end(), spatial.back()));
        order.push_back(spatial.back());
        step(Transform::reorder(order));
      }
      vectorize(nest, order.back(), choice(1), step);
      for (const std::string& prefix : {p, p + "init.", p + "mean."}) parallelize(nest, st, prefix, choice(2), step);
    }
    return t;
  }

 private:
  // A contraction stage as a register-tiled micro-kernel (the file comment). Its loops are the
  // ones still in the nest (a compute_at removed those its reader's loops cover).
  template <class Step>
  void tile_contraction(const LoopNest& nest, const Stage& st, const std::string& p, std::int64_t rows,
                        std::int64_t cols, bool pack, std::int64_t par, Step& step) const {
    std::vector<std::string> spatial, reductions;
    for (const auto& v : st.vars)
      if (nest.find_loop(p + v.name)) (v.reduction ? reductions : spatial).push_back(p + v.name);
    if (spatial.empty()) return;
    const std::string col = spatial.back();
    const std::string row = spatial.size() > 1 ? spatial[spatial.size() - 2] : "";
    // Splits `loop` by `tile` into its outer and inner parts; "" for a part that is not there.
    auto tile_loop = [&](const std::string& loop, std::int64_t tile) -> std::pair<std::string, std::string> {
      const std::int64_t extent = nest.find_loop(loop)->extent;
      if (tile <= 1) return {loop, ""};
      if (tile >= extent) return {"", loop};
      if (!step(Transform::split(loop, {(extent + tile - 1) / tile, tile}))) return {loop, ""};
      return {loop + ".0", loop + ".1"};
    };
    const auto [co, ci] = tile_loop(col, cols);
    const auto [ro, ri] = row.empty() ? std::pair<std::string, std::string>{} : tile_loop(row, rows);
    std::vector<std::string> order;
    for (const auto& s : spatial)
      if (s != row && s != col) order.push_back(s);
    for (const auto& s : {ro, co})
      if (!s.empty()) order.push_back(s);
    const std::size_t outer = order.size();
    order.insert(order.end(), reductions.begin(), reductions.end());
    for (const auto& s : {ri, ci})
      if (!s.empty()) order.push_back(s);
    step(Transform::reorder(order));
    const std::string acc_at = outer > 0 ? order[outer - 1] : "";
    for (const auto& x : register_tile_steps(st.out.tensor, acc_at, ri, ci)) step(x);
    if (pack) {
      // Inputs that index the columns other than by their last index: the vector lanes would
      // gather from them.
      const std::string col_var = col.substr(p.size());
      for_each_read(st.value, [&](const Access& a) {
        bool strided = false;
        for (std::size_t d = 0; d + 1 < a.index.size(); ++d) strided = strided || a.index[d].uses(col_var);
        if (strided) step(Transform::pack(a.tensor, order.front()));
      });
    }
    fuse_then_parallel(nest, std::vector<std::string>(order.begin(), order.begin() + outer), par, step);
  }

  template <class Step>
  static void vectorize(const LoopNest& nest, const std::string& loop, std::int64_t len, Step& step) {
    const Node* l = nest.find_loop(loop);
    if (len == 0 || !l) return;
    if (l->extent <= len) {
      step(Transform::vectorize(loop));
      return;
    }
    if (step(Transform::split(loop, {(l->extent + len - 1) / len, len}))) step(Transform::vectorize(loop + ".1"));
  }

  // Fuses the first `n` output loops of the nest whose loops carry `prefix`, then parallelises.
  template <class Step>
  static void parallelize(LoopNest& nest, const Stage& st, const std::string& prefix, std::int64_t n, Step& step) {
    std::vector<std::string> names;
    for (const auto& v : st.vars)
      if (!v.reduction) names.push_back(prefix + v.name);
    if (!names.empty() && nest.find_loop(names[0])) fuse_then_parallel(nest, names, n, step);
  }

  // Fuses the first `n` of `loops` (each the child of the one before) into one loop and
  // parallelises it; nothing when n is 0.
  template <class Step>
  static void fuse_then_parallel(const LoopNest& nest, const std::vector<std::string>& loops, std::int64_t n,
                                 Step& step) {
    if (n == 0 || loops.empty()) return;
    std::string outer = loops[0];
    for (std::int64_t i = 1; i < n && i < static_cast<std::int64_t>(loops.size()); ++i) {
      if (!step(Transform::fuse(outer))) break;
      outer = fused_name(nest, outer, loops[i]);
    }
    step(Transform::parallel(outer));
  }

  static std::string fused_name(const LoopNest& nest, const std::string& a, const std::string& b) {
    const std::string want = a + "_" + b;
    return nest.find_loop(want) ? want : a;
  }

  // The last stage that reads `tensor`.
  std::size_t last_reader(const std::string& tensor) const {
    std::size_t r = 0;
    for (std::size_t k = 0; k < op_.stages.size(); ++k)
      for_each_read(op_.stages[k].value, [&](const Access& a) {
        if (a.tensor == tensor) r = k;
      });
    return r;
  }

  Op op_;
  std::int64_t lanes_;         // f32 lanes of a vector
  std::int64_t accumulators_;  // vector registers a register tile may accumulate in
  std::vector<std::pair<std::string, std::size_t>> placements_;  // intermediate, its last reader
  std::vector<std::size_t> first_knob_;  // per stage: the index of its first knob
  std::vector<bool> contraction_;        // per stage: contraction_stage()
  std::vector<Knob> knobs_;
};

}  // namespace

std::unique_ptr<Space> make_stage_space(const Op& op, int threads, VectorRegisters vectors) {
  if (!op.multi_stage()) throw Error("make_stage_space: op '" + op.name + "' is a contraction");
  return std::make_unique<StageSpace>(op, threads, vectors);
}

}  // namespace attune
