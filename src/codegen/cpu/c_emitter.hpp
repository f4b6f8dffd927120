// The C emitter's shared state: names, constants of unrolled loops, promoted buffers, output.
// c_emitter.cpp walks loops and scalar statements; c_vector.cpp emits vectorized loops and
// decides which local buffers live in registers.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "attune/codegen_cpu.hpp"
#include "attune/loopnest.hpp"
#include "schedule/analysis.hpp"

namespace attune::cgen {

// Local buffers up to this size live on the stack; larger ones are per-thread heap workspaces.
inline constexpr std::size_t kStackBytes = 64 * 1024;

// A divisibility test of a strided read, `residue = 0 (mod divisor)` (see c_phase_step.cpp).
struct PhaseTest {
  AffineExpr residue;  // the numerator with coefficients and constant reduced into [0, divisor)
  std::int64_t divisor = 1;
};
// A loop stepped by the divisor from `start` (C text), so that `test` holds in its whole body.
struct PhaseStep {
  PhaseTest test;
  std::string start;
};
// The numerator of a divided index, reduced modulo its divisor (divisor kept).
AffineExpr numerator_residue(const AffineExpr& e);

class CEmitter {
 public:
  CEmitter(const LoopNest& nest, const CpuCodegenOptions& opts);
  std::string function_body();  // the statements of attune_kernel

  // ---- shared helpers (c_emitter.cpp) ----
  const LoopNest& nest() const { return nest_; }
  int lanes() const { return lanes_; }
  std::string var(const std::string& v) const;           // C identifier of a loop variable
  std::string expr(const AffineExpr& e) const;           // with unrolled constants folded
  // Flat element offset of an access (row-major over the buffer's shape).
  std::string offset(const Access& a) const;
  // The condition under which a read of `a` is inside its tensor ("" when always true).
  std::string in_bounds(const Access& a, const Stmt& s) const;
  std::string guards(const Stmt& s) const;               // "" when none
  std::string ctype(DType t) const;
  std::string scalar_read(const Access& a, const Stmt& s) const;  // value, 0 when out of bounds
  void line(const std::string& text);
  int indent = 1;
  std::map<std::string, std::int64_t> consts;  // unrolled loop variables -> current value

  // [lo, hi] of `e` where the emitter is now: unrolled loops at their constants, the loops of a
  // split tail (c_tail_split.cpp) over their part, every other loop over its extent.
  sched::Range range(const AffineExpr& e) const;

  // ---- vectors (c_vector.cpp) ----
  // Emits a vectorized loop with vector code when possible; returns false to fall back.
  bool emit_vector_loop(const Node& loop);
  void decide_promotions();
  bool promoted(const std::string& buffer) const { return promoted_.count(buffer) > 0; }
  void declare_promoted(const BufferDecl& b);

 private:
  void emit_nodes(const std::vector<Node>& nodes);
  void emit_loop(const Node& loop);
  void emit_stmt(const Stmt& s);
  void emit_allocs(const std::string& at);
  void emit_workspaces();
  // c_phase_step.cpp: whether `loop` can step over the residue class of a strided read.
  std::optional<PhaseStep> phase_step(const Node& loop) const;
  bool proven_divisible(const AffineExpr& e) const;  // by an enclosing stepped loop
  // c_tail_split.cpp: how many leading iterations of `loop` need none of the bounds checks
  // below it, when emitting those apart from the tail is worth it.
  std::optional<std::int64_t> tail_split(const Node& loop) const;
  bool access_vectorizable(const Access& a, const Stmt& s, const std::string& v) const;
  bool stmt_vectorizable(const Stmt& s, const std::string& v) const;
  // A write-back or copy whose source is vector-readable but whose destination is strided.
  bool stmt_scatterable(const Stmt& s, const std::string& v) const;
  bool stmt_vector_or_scatter(const Stmt& s, const std::string& v) const;
  void emit_scattered_stmt(const Stmt& s, const std::string& v, std::int64_t base);
  void emit_vector_stmt(const Stmt& s, const std::string& v, std::int64_t base);
  std::string vector_read(const Access& a, const Stmt& s, const std::string& v, std::int64_t base);
  std::string promoted_reg(const Access& a, const std::string& v, std::int64_t base) const;

  const LoopNest& nest_;
  CpuCodegenOptions opts_;
  int lanes_ = 8;
  std::ostringstream out_;
  std::set<std::string> promoted_;
  std::vector<std::string> enclosing_;  // variables of the loops around the current statement
  std::vector<PhaseTest> proven_;       // tests the enclosing stepped loops make true
  std::map<std::string, std::int64_t> extents_;        // every loop and bound variable's extent
  std::map<std::string, sched::Range> split_ranges_;   // loops being emitted as one part of a split
  int split_depth_ = 0;
};

}  // namespace attune::cgen
