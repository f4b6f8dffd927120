// The C printer's shared state: names, constants of unrolled copies, output. It prints a nest
// that the lowering passes (codegen/lowering.hpp) have decided: which loops are vector code,
// stepped or split, which buffers live in registers. c_emitter.cpp prints loops and scalar
// statements; c_vector.cpp vector loops and promoted buffers.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/codegen_cpu.hpp"
#include "codegen/cpu/range_env.hpp"
#include "schedule/analysis.hpp"
#include "schedule/loopnest.hpp"

namespace attune::cgen {

// Local buffers up to this size live on the stack; larger ones are per-thread heap workspaces.
inline constexpr std::size_t kStackBytes = 64 * 1024;

// Which function of the kernel ABI (codegen/artifact.hpp) a body is for: the whole kernel, the
// pack of its prepackable buffers alone, or the rest, reading them from the caller's `packed`.
enum class BodyPart { whole, pack, prepacked };

class CEmitter {
 public:
  // `nest` is lowered (lower_cpu_nest).
  CEmitter(const LoopNest& nest, const CpuCodegenOptions& opts);
  std::string function_body(BodyPart part = BodyPart::whole);

  // The local buffers that nests at the function's root fill by copying const inputs, and that
  // nothing else writes: their contents depend on the weights alone, so a caller can pack them
  // once. In order of nest.buffers, which is the order of `packed`.
  const std::vector<const BufferDecl*>& prepackable() const { return prepackable_; }

  // ---- shared helpers (c_emitter.cpp) ----
  const LoopNest& nest() const { return nest_; }
  int lanes() const { return lanes_; }
  std::string var(const std::string& v) const;  // C identifier of a loop variable
  std::string expr(const AffineExpr& e) const;  // with unrolled constants folded
  // Flat element offset of an access (row-major over the buffer's shape).
  std::string offset(const Access& a) const;
  // The condition under which a read of `a` is inside its tensor ("" when always true).
  std::string in_bounds(const Access& a, const Stmt& s) const;
  std::string guards(const Stmt& s) const;  // "" when none
  std::string ctype(DType t) const;
  std::string scalar_read(const Access& a, const Stmt& s) const;  // value, 0 when out of bounds
  void line(const std::string& text);
  int indent = 1;

  // [lo, hi] of `e` where the printer is now: unrolled copies at their constants, the parts of a
  // split loop over their part, every other loop over its extent.
  sched::Range range(const AffineExpr& e) const { return env_.of(e); }

  // ---- vectors (c_vector.cpp) ----
  // Prints a loop that mark_vector_loops made vector code.
  void emit_vector_loop(const Node& loop);
  bool promoted(const std::string& buffer) const { return nest_.buffer(buffer)->in_registers; }
  void declare_promoted(const BufferDecl& b);

  // ---- multi-stage ops (c_compute.cpp) ----
  void emit_compute_stmt(const Stmt& s);
  // A vectorized loop whose body is one reduction over it: per-lane accumulators combined after
  // the loop (`omp simd reduction`). False when `loop` is not one.
  bool emit_reduction_loop(const Node& loop);
  // Where `loop` and the loops nested alone inside it (none of them indexing the output) end in
  // such a vectorized reduction loop: that loop, else null. Then emit_lane_reduction keeps one
  // accumulator per lane across all of them and combines the lanes once after the outermost,
  // instead of once per pass of the vector loop (a serial chain through a horizontal sum).
  const Node* lane_reduction_below(const Node& loop) const;
  void emit_lane_reduction(const Node& outer, const Node& vector_loop);

 private:
  void emit_nodes(const std::vector<Node>& nodes);
  void emit_loop(const Node& loop);
  // A vector loop's lanes that do something: v < limit, which makes `checks` hold (lane_stop()).
  struct LaneStop {
    AffineExpr limit;
    std::vector<Guard> checks;
  };
  std::optional<LaneStop> lane_stop(const Node& vector_loop) const;
  bool stopped(const AffineExpr& e, std::int64_t bound) const;  // e < bound by an enclosing lane_stop
  void emit_stmt(const Stmt& s);
  void emit_allocs(const std::string& at);
  void emit_workspaces();
  bool is_prepackable(const std::string& buffer) const;
  bool packs_prepackable(const Node& root_node) const;  // a root copy nest filling one of them
  bool proven_divisible(const AffineExpr& e) const;  // by an enclosing stepped loop
  void emit_scattered_stmt(const Stmt& s, const std::string& v, std::int64_t base);
  void emit_vector_stmt(const Stmt& s, const std::string& v, std::int64_t base);
  std::string vector_read(const Access& a, const Stmt& s, const std::string& v, std::int64_t base);
  std::string promoted_reg(const Access& a, const std::string& v, std::int64_t base) const;
  // C for a compute statement's value in float; in max=/min= statements a read outside its
  // tensor adds its bounds test to `skip_unless` (the point is skipped), elsewhere it reads 0.
  std::string value_c(const Expr& e, const Stmt& s, std::string& skip_unless) const;
  // C for the epilogue's value (Op::epilogue.value) of statement `s` in float, where the element
  // computed so far is the C expression `current`.
  std::string epilogue_value_c(const Stmt& s, const std::string& current) const;
  // Prints a vector statement whose epilogue has a value: the vector `current` applies it lane by
  // lane in an `omp simd` loop (the math prelude's helpers vectorise), then is stored by `store`.
  void emit_vector_epilogue_value(const Stmt& s, const std::string& v, std::int64_t base, const std::string& current,
                                  const std::string& cond, const std::function<std::string(const std::string&)>& store);

  const LoopNest& nest_;
  CpuCodegenOptions opts_;
  int lanes_ = 8;
  bool in_lane_reduction_ = false;  // printing the loops of emit_lane_reduction
  std::ostringstream out_;
  RangeEnv env_;                   // consts: unrolled copies and vector chunks being printed
  std::vector<PhaseStep> proven_;  // tests the enclosing stepped loops make true
  std::vector<Guard> stopped_;     // checks the enclosing vector loops' ends make true (lane_stop())
  std::vector<const BufferDecl*> prepackable_;
  BodyPart part_ = BodyPart::whole;
};

}  // namespace attune::cgen
