// The mapping space (search/tuner.hpp, make_mapping_space): AMOS's "mappings x schedules" as one
// armed space the tuning loop can search.
//
// Knobs, in order: "arm"; the CPU loop-nest space's knobs (used by arm 0 when it is there);
// t_rows, t_cols, t_parallel (used by the tensorized arms: the TensorizeSchedule). A config
// holds choice 0 for every knob its arm does not use, so each candidate has one spelling.
//
// Which mappings become arms: a CPU target may admit hundreds (a capsule conv onto the AVX2
// FMA has 1170), more than a tuning budget can open, so they are ranked first. On the CPU the
// staged B' row and the C' store run along the intrinsic's column (lane) loop, so a mapping
// whose innermost column op loop is contiguous in both streams through cache lines while one
// that strides gathers a line per lane: that comes first, then the iterations the intrinsic
// covers (fewer, larger tiles), then padding waste, then the report's order.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/error.hpp"
#include "schedule/tensorize.hpp"
#include "search/tuner.hpp"

namespace attune {

namespace {

constexpr const char* kVersion = "cpu-map-v3";

// Whether the host can run code for this emit kind (the arms are measured here).
bool host_runs(const std::string& emit_kind) {
  if (emit_kind == "avx2_fma_bcast") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (emit_kind == "avx512_fma_bcast") return __builtin_cpu_supports("avx512f");
  if (emit_kind == "avx512_vnni") return __builtin_cpu_supports("avx512vnni");
  return false;  // GPU kinds: not CPU code
}

// Element stride of op loop `v` in access `a` (row-major; divisors ignored).
std::int64_t stride_of(const Op& op, const Access& a, const std::string& v) {
  const auto& shape = op.tensor(a.tensor).shape;
  std::int64_t s = 0, inner = 1;
  for (std::size_t d = a.index.size(); d-- > 0;) {
    s += a.index[d].coeff(v) * inner;
    inner *= shape.at(d);
  }
  return s;
}

const Access& access_of(const Op& op, const std::string& tensor) {
  for (const auto& in : op.inputs)
    if (in.tensor == tensor) return in;
  return op.output;
}

// 2 when the innermost column loop is contiguous in both B' and C', 1 in one of them, 0 else.
int streaming(const TensorizePlan& p) {
  if (p.n.op_loops.empty()) return 0;
  const std::string& v = p.n.op_loops.back();
  return (std::abs(stride_of(p.op, access_of(p.op, p.b_tensor), v)) == 1) +
         (std::abs(stride_of(p.op, p.op.output, v)) == 1);
}

std::int64_t on_intrinsic(const TensorizePlan& p) { return p.m.extent * p.n.extent * p.k.extent; }

std::vector<TensorizePlan> runnable_plans(const Op& op, const Target& target) {
  std::vector<TensorizePlan> plans;
  if (target.kind != TargetKind::cpu) return plans;
  for (const auto& in : target.intrinsics) {
    if (!host_runs(in.emit_kind)) continue;
    auto v = plan_every_tensorize(op, in);
    plans.insert(plans.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
  }
  return plans;
}

class MappingSpace final : public Space {
 public:
  MappingSpace(const Op& op, const Target& target, const MappingSpaceOptions& o) : op_(op) {
    if (o.with_nest) nest_ = make_cpu_space(op, o.threads, o.vectors);
    plans_ = runnable_plans(op, target);
    std::stable_sort(plans_.begin(), plans_.end(), [](const TensorizePlan& a, const TensorizePlan& b) {
      if (streaming(a) != streaming(b)) return streaming(a) > streaming(b);
      if (on_intrinsic(a) != on_intrinsic(b)) return on_intrinsic(a) > on_intrinsic(b);
      return a.mapping.padding_waste < b.mapping.padding_waste;
    });
    if (static_cast<int>(plans_.size()) > std::max(0, o.max_mappings)) plans_.resize(std::max(0, o.max_mappings));
    const int arms = (nest_ ? 1 : 0) + static_cast<int>(plans_.size());
    if (arms == 0)
      throw Error("no arm to search: " + std::string(o.with_nest ? "" : "loop-nest schedules are off and ") +
                  "no mapping of " + (op.name.empty() ? std::string("the op") : op.name) + " onto an intrinsic of " +
                  target.name + " runs on this machine (see `attune map`)");

    Knob arm{"arm", {}, "which arm: the loop-nest schedules or one mapping onto an intrinsic"};
    for (int a = 0; a < arms; ++a) arm.choices.push_back(a);
    knobs_.push_back(arm);
    nest_at_ = knobs_.size();
    if (nest_)
      for (const auto& k : nest_->knobs()) knobs_.push_back(k);
    t_at_ = knobs_.size();
    knobs_.push_back({"t_rows", {1, 2, 3, 4, 6}, "tensorized: fused rows per register block"});
    knobs_.push_back({"t_cols", {1, 2, 3}, "tensorized: column tiles per register block"});
    knobs_.push_back({"t_parallel", o.threads > 1 ? std::vector<std::int64_t>{1, 0} : std::vector<std::int64_t>{0},
                      "tensorized: 1 runs the outer tiles in parallel"});
    if (nest_) nest_width_ = nest_->visible_features(Config(nest_->knobs().size(), 0)).size();
    // Registers for the accumulators, the staged column tiles and the broadcast row.
    registers_ = o.vectors.count;
  }

  std::string version() const override { return kVersion; }
  const std::vector<Knob>& knobs() const override { return knobs_; }
  int arm_knob() const override { return 0; }

  std::string arm_name(int arm) const override {
    if (is_nest(arm)) return "loop-nest schedules";
    const TensorizePlan& p = plan(arm);
    return p.intrinsic.name + " mapping #" + std::to_string(p.mapping_number) + " (" + p.mapping.str() + ")";
  }

  bool knob_used(const Config& c, std::size_t k) const override {
    if (k == 0) return true;
    const bool nest_knob = k >= nest_at_ && k < t_at_;
    return nest_knob == is_nest(c.at(0));
  }

  bool admissible(const Config& c) const override {
    if (c.size() != knobs_.size()) return false;
    for (std::size_t k = 1; k < c.size(); ++k)
      if (!knob_used(c, k) && c[k] != 0) return false;  // one spelling per candidate
    if (is_nest(c[0])) return nest_->admissible(nest_config(c));
    const TensorizePlan& p = plan(c[0]);
    const auto s = register_block(c);
    return s.rows * s.cols + s.cols + 1 <= registers_ && s.rows <= p.m.extent && s.cols <= p.n.tiles();
  }

  // The arm first (uniformly), then the knobs it uses; rejection over the whole space would
  // almost never draw a config whose unused knobs all sit at their first choice.
  Config random_config(std::mt19937_64& rng) const override {
    Config c(knobs_.size(), 0);
    for (int tries = 0; tries < 1000; ++tries) {
      std::fill(c.begin(), c.end(), 0);
      c[0] = std::uniform_int_distribution<int>(0, static_cast<int>(knobs_[0].choices.size()) - 1)(rng);
      for (std::size_t k = 1; k < c.size(); ++k)
        if (knob_used(c, k))
          c[k] = std::uniform_int_distribution<int>(0, static_cast<int>(knobs_[k].choices.size()) - 1)(rng);
      if (admissible(c)) break;
    }
    return c;
  }

  Trace trace(const Config& c) const override {
    if (is_nest(c.at(0))) return nest_->trace(nest_config(c));
    throw Error("arm '" + arm_name(c[0]) + "' is tensorized: its candidates have no loop-nest trace");
  }

  Schedule schedule(const Config& c) const override {
    if (is_nest(c.at(0))) return nest_->schedule(nest_config(c));
    Schedule s;
    s.tensorize = tensorized(c).step();
    return s;
  }

  // The loop-nest space's seeds, as arm-0 configs.
  std::vector<Config> seed_configs() const override {
    std::vector<Config> out;
    if (!nest_) return out;
    for (const auto& n : nest_->seed_configs()) {
      Config c(knobs_.size(), 0);
      std::copy(n.begin(), n.end(), c.begin() + static_cast<std::ptrdiff_t>(nest_at_));
      out.push_back(c);
    }
    return out;
  }

  // Records of the plain loop-nest space ("cpu-v3", "cpu-v2") are arm-0 configs here: they
  // name only nest knobs, and the arm knob they leave out is at choice 0, the nest arm.
  std::vector<std::string> readable_versions() const override {
    std::vector<std::string> v{version()};
    if (nest_)
      for (auto& n : nest_->readable_versions()) v.push_back(n);
    return v;
  }

  // [arm, tensorized?] ++ the nest space's features (NaN for tensorized arms) ++ the plan's
  // shape and schedule (NaN for the nest arm). Same width for every config.
  std::vector<float> visible_features(const Config& c) const override {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> f{static_cast<float>(c.at(0)), is_nest(c[0]) ? 0.f : 1.f};
    if (nest_) {
      if (is_nest(c[0])) {
        const auto v = nest_->visible_features(nest_config(c));
        f.insert(f.end(), v.begin(), v.end());
      } else {
        f.insert(f.end(), nest_width_, nan);
      }
    }
    if (is_nest(c[0])) {
      f.insert(f.end(), 10, nan);
      return f;
    }
    const TensorizePlan& p = plan(c[0]);
    const auto s = register_block(c);
    auto lg = [](std::int64_t x) {
      return static_cast<float>(std::log2(static_cast<double>(std::max<std::int64_t>(1, x))));
    };
    f.insert(f.end(), {lg(p.m.extent), lg(p.n.extent), lg(p.k.extent), lg(p.outer_count()),
                       static_cast<float>(p.mapping.padding_waste), static_cast<float>(streaming(p)),
                       static_cast<float>(p.n.tile), static_cast<float>(s.rows), static_cast<float>(s.cols),
                       s.parallel ? 1.f : 0.f});
    return f;
  }

 private:
  bool is_nest(int arm) const { return nest_ && arm == 0; }
  int plan_index(int arm) const { return arm - (nest_ ? 1 : 0); }
  const TensorizePlan& plan(int arm) const { return plans_.at(static_cast<std::size_t>(plan_index(arm))); }

  Config nest_config(const Config& c) const {
    return Config(c.begin() + static_cast<std::ptrdiff_t>(nest_at_), c.begin() + static_cast<std::ptrdiff_t>(t_at_));
  }
  TensorizeSchedule register_block(const Config& c) const {
    TensorizeSchedule s;
    s.rows = static_cast<int>(knobs_[t_at_].choices.at(c.at(t_at_)));
    s.cols = static_cast<int>(knobs_[t_at_ + 1].choices.at(c.at(t_at_ + 1)));
    s.parallel = knobs_[t_at_ + 2].choices.at(c.at(t_at_ + 2)) == 1;
    return s;
  }
  TensorizePlan tensorized(const Config& c) const {
    TensorizePlan p = plan(c.at(0));
    p.schedule = register_block(c);
    return p;
  }

  Op op_;
  std::unique_ptr<Space> nest_;
  std::vector<TensorizePlan> plans_;
  std::int64_t registers_ = 16;  // the target's vector registers
  std::vector<Knob> knobs_;
  std::size_t nest_at_ = 1, t_at_ = 1, nest_width_ = 0;
};

}  // namespace

std::unique_ptr<Space> make_mapping_space(const Op& op, const Target& target, const MappingSpaceOptions& o) {
  return std::make_unique<MappingSpace>(op, target, o);
}

int count_cpu_mappings(const Op& op, const Target& target) {
  return static_cast<int>(runnable_plans(op, target).size());
}

}  // namespace attune
