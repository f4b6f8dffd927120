// search/cpu_space.hpp — the CPU schedule space's class, for the files that implement it; every
// other file makes one with make_cpu_space (tuner.hpp).
//
// The space is a register-blocked micro-kernel generalised to every contraction.
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
//
// One file per part:
//   cpu_space.cpp        the knobs: what a config chooses, and which configs are worth proposing
//   cpu_space_trace.cpp  a config's trace: the loops its choices make, in order
//   cpu_space_seeds.cpp  the configs measured first: register tiles and cache-blocked tiles
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "search/tuner.hpp"

namespace attune {

class CpuSpace final : public Space {
 public:
  CpuSpace(const Op& op, int threads, VectorRegisters vectors);

  std::string version() const override { return "cpu-v3"; }
  // "cpu-v2" had no vec_var knob (its V was always the natural one, choice 0 here) and a subset
  // of the other knobs' choices: read by name, its configs are this space's with V = 0.
  std::vector<std::string> readable_versions() const override { return {"cpu-v3", "cpu-v2"}; }
  const std::vector<Knob>& knobs() const override { return knobs_; }
  bool admissible(const Config& c) const override;
  Trace trace(const Config& c) const override;
  std::vector<Config> seed_configs() const override;
  std::vector<float> visible_features(const Config& c) const override;
  std::vector<float> transfer_features(const Config& c) const override;
  int structure_knob() const override { return static_cast<int>(knob_at("vec_var")); }

 private:
  // The knobs, in the order configs hold them (records name them, but a Config is positional).
  void choose_vector_dimensions();
  void add_vector_knobs();
  void add_row_knobs();
  void add_reduction_and_order_knobs();
  void add_pack_knobs();
  void add_parallel_knob(int threads);
  void add_optional_knobs();

  // A knob's index by name (Error when the space has none), the value `c` chooses for it, and
  // the index of `value` among knob k's choices (-1: not a choice).
  std::size_t knob_at(const std::string& name) const;
  std::int64_t value(const Config& c, const std::string& name) const;
  int choice_index(std::size_t k, std::int64_t value) const;
  // The index of an optional knob, if this op has it; its value in `c` (0 when absent).
  std::optional<std::size_t> optional_at(const std::string& name) const;
  std::int64_t optional(const std::string& name, const Config& c) const;

  const std::string& vec_of(const Config& c) const { return vecs_.at(static_cast<std::size_t>(c[0])); }
  std::vector<std::string> rows_for(const std::string& vec) const;
  std::int64_t vec_tile(const Config& c) const;
  std::int64_t block_columns(const Config& c) const;
  bool blocked(const Config& c) const;
  std::int64_t round_up(std::int64_t e) const { return (e + lanes_ - 1) / lanes_ * lanes_; }
  // Accumulator vectors a register tile may hold (the target's budget, VectorRegisters).
  std::int64_t max_accumulators() const { return vectors_.accumulators(); }
  std::int64_t phase_of(const std::string& x) const;
  static bool reads_along(const Access& a, const std::string& v);  // some index of `a` uses v
  static bool strided_in(const Access& a, const std::string& v);
  static bool reads_outside(const LoopNest& nest, const std::string& tensor, const std::string& along = "");

  // cpu_space_trace.cpp: builds one config's trace, a step at a time.
  struct TraceBuilder;
  void parallelize_copies(Trace& t) const;

  // The levels of a pack_<input> knob (add_pack_knobs()): the choice's index is its value.
  enum PackLevel : int { kInPlace = 0, kPackAtTile = 1, kPackAtOuterTile = 2, kPackOnce = 3, kPackPadded = 4 };

  // cpu_space_seeds.cpp.
  std::vector<Config> register_tile_seeds() const;
  std::vector<Config> blocked_seeds() const;
  void add_blocked_seeds(std::vector<Config>& out, std::size_t v, std::int64_t vectors, std::int64_t most_rows,
                         int ks) const;
  void add_variants(std::vector<Config>& seeds, const std::function<bool(Config&)>& edit, bool before) const;
  void prepend_variants(std::vector<Config>& seeds, const std::string& knob) const;
  void append_in_place_variants(std::vector<Config>& seeds) const;
  void prepend_reduction_blocked_variants(std::vector<Config>& seeds) const;
  bool pads(const std::string& input, std::size_t v) const;
  std::size_t seed_row(std::size_t v) const;
  std::pair<std::string, std::int64_t> largest_weight() const;
  int outer_parallel_choice() const;
  void push_admissible(std::vector<Config>& out, const Config& c) const;

  // The static features of the nest `c` expands to; NaN where a transformation refuses it.
  std::vector<float> nest_part(const Config& c) const;

  Op op_;
  int threads_;
  std::int64_t lanes_;  // f32 lanes of a vector: 8 (AVX2) or 16 (AVX-512)
  VectorRegisters vectors_;
  std::string red_;
  std::vector<std::string> vecs_, inputs_;  // vecs_: the natural vector dimension first
  std::vector<std::set<std::string>> outside_along_;  // per vecs_ entry (add_pack_knobs says which)
  std::vector<Knob> knobs_;
  std::size_t parallel_knob_ = 0;
  std::size_t base_knobs_ = 0;  // knobs_[base_knobs_...] are the optional ones
};

}  // namespace attune
