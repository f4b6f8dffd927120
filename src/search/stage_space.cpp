// The schedule space of multi-stage ops (search/tuner.hpp, make_stage_space). Per stage k, over
// the nest of its compute statement ("s<k>." loops, schedule/loopnest.hpp):
//   s<k>_order   0: as written (spatial loops, then the reduced ones); 1: the innermost spatial
//                loop moved innermost, so that a contraction stage vectorises over its output
//   s<k>_vec     0, or the vector length: the innermost loop split by it and vectorised (a
//                reduction loop is vectorised with one accumulator per lane)
//   s<k>_par     how many outer spatial loops are fused into one parallel loop (0: serial); the
//                stage's init and mean nests follow the same choice
// and per intermediate T, before those (the latest stage's first):
//   at_T         0: computed whole by its own nests; 1: inlined into its readers; 2 + q:
//                computed at depth q of the output loops of the last stage that reads it (not
//                its innermost output loop)
// A config expands step by step on the nest, and a step its transformation refuses is left
// out, so every config is a valid trace.
#include <algorithm>

#include "ir/error.hpp"
#include "schedule/analysis.hpp"
#include "search/tuner.hpp"

namespace attune {

namespace {

class StageSpace : public Space {
 public:
  StageSpace(const Op& op, int threads, VectorRegisters vectors) : op_(op) {
    const std::int64_t lanes = std::max(1, vectors.lanes);
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
      knobs_.push_back({p + "order", reduces ? std::vector<std::int64_t>{0, 1} : std::vector<std::int64_t>{0},
                        "1: the innermost output loop innermost"});
      knobs_.push_back({p + "vec", {0, lanes, 2 * lanes, 4 * lanes}, "vector length of the innermost loop (0: none)"});
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
  // both with the longest vectors, reductions' output loops innermost and the widest parallel
  // loop.
  std::vector<Config> seed_configs() const override {
    std::vector<Config> seeds;
    for (bool fused : {false, true}) {
      Config c(knobs_.size(), 0);
      for (std::size_t i = 0; i < knobs_.size(); ++i) {
        const std::string& n = knobs_[i].name;
        const int last = static_cast<int>(knobs_[i].choices.size()) - 1;
        if (n.rfind("at_", 0) == 0) c[i] = fused ? last : 0;
        if (n.size() > 4 && (n.ends_with("_vec") || n.ends_with("_par"))) c[i] = last;
      }
      seeds.push_back(std::move(c));
    }
    return seeds;
  }
  std::string version() const override { return "stages-2"; }

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
    const std::size_t first = placements_.size();
    for (std::size_t k = 0; k < op_.stages.size(); ++k) {
      const auto choice = [&](std::size_t i) { return knobs_[first + 3 * k + i].choices.at(c.at(first + 3 * k + i)); };
      const Stage& st = op_.stages[k];
      const std::string p = "s" + std::to_string(k) + ".";
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
    if (n == 0 || names.empty() || !nest.find_loop(names[0])) return;
    std::string outer = names[0];
    for (std::int64_t i = 1; i < n && i < static_cast<std::int64_t>(names.size()); ++i) {
      if (!step(Transform::fuse(outer))) break;
      outer = fused_name(nest, outer, names[i]);
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
  std::vector<std::pair<std::string, std::size_t>> placements_;  // intermediate, its last reader
  std::vector<Knob> knobs_;
};

}  // namespace

std::unique_ptr<Space> make_stage_space(const Op& op, int threads, VectorRegisters vectors) {
  if (!op.multi_stage()) throw Error("make_stage_space: op '" + op.name + "' is a contraction");
  return std::make_unique<StageSpace>(op, threads, vectors);
}

}  // namespace attune
