// schedule/loopnest.hpp — the schedule-level IR: a tree of loops whose leaves are statements.
//
// The tree is a value (copied by transformations, never shared), small enough that a full copy
// per transformation costs nothing next to compiling a candidate. Every index is an affine
// expression over loop variables (and over variables bound by a fused loop, see Binding).
//
// A contraction Op becomes three sibling nests (initial_nest):
//
//   for n, k, p, q:              O[n,k,p,q] = 0                               (init)
//   for n, k, p, q, c, r, s:     O[n,k,p,q] += I[n,c,p+r-1,q+s-1] * W[k,c,r,s] (update)
//   for n, k, p, q:              O[...] = relu(O[...] + Bias[k])               (epilogue, if any)
//
// The update nest keeps the Op's variable names; the init and epilogue nests prefix theirs with
// "init." and "epi.". Keeping the init apart makes every loop of the update nest freely
// reorderable (a += reduction is insensitive to order up to float rounding). A cache_write that
// covers every reduction loop removes the init and folds the epilogue into its write-back.
//
// A multi-stage op (Op::stages) becomes, per stage k, a nest of compute statements over the
// stage's variables prefixed "s<k>.", preceded for a reduction by an init nest ("s<k>.init.",
// dst = identity) and followed for mean= by a scaling nest ("s<k>.mean.", dst = dst * 1/n); a
// contraction stage (contraction_stage) has an update statement instead of a compute one.
// Its intermediates (Op::locals) are local buffers of the function. A multi-stage op that is a
// contraction followed by pointwise statements (ir/fold_epilogue.hpp) becomes the nests of the
// contraction it folds into instead, `op` being that contraction: its epilogue statement (and
// the write-back cache_write makes) computes the pointwise statements' value.
//
// Reads outside a tensor's bounds, or at an inexact division, are zero (the Op's padding
// semantics); the code generator emits checks only where interval analysis cannot rule them out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/op.hpp"

namespace attune {

enum class LoopKind { serial, parallel, vectorized, unrolled };
std::string_view loop_kind_name(LoopKind k);

// A variable defined inside a fused loop: var = (base / div) % mod   (mod == 0: no modulo).
struct Binding {
  std::string var;
  AffineExpr base;
  std::int64_t div = 1;
  std::int64_t mod = 0;
  std::int64_t extent = 0;  // the variable's range is [0, extent)
  bool operator==(const Binding&) const = default;
};

// A statement runs only where every guard holds: 0 <= expr < bound (split tails).
struct Guard {
  AffineExpr expr;
  std::int64_t bound = 0;
  std::string str() const;
  bool operator==(const Guard&) const = default;
};

enum class StmtKind {
  init,       // dst = 0
  update,     // dst += srcs[0] * srcs[1] * ...
  copy,       // dst = srcs[0]            (packing; out-of-bounds source reads zero)
  writeback,  // dst = srcs[0]  or  dst += srcs[0] when `accumulate`; then the epilogue if `epilogue`
  epilogue,   // dst = relu(dst + bias)  (per Op::epilogue)
  compute,    // a multi-stage op's statement: dst = value, or dst = combine(dst, value) per `reduce`
};
std::string_view stmt_kind_name(StmtKind k);

struct Stmt {
  StmtKind kind = StmtKind::update;
  Access dst;
  std::vector<Access> srcs;
  bool accumulate = false;  // writeback only
  bool epilogue = false;    // writeback only: apply Op::epilogue after storing
  // The epilogue's bias read in this statement's variables. Update statements carry it (unused)
  // so that a write-back made from them can apply the epilogue; epilogue statements read it.
  std::optional<Access> bias;
  std::vector<Guard> guards;
  // compute statements: the value (its reads are this statement's accesses too) and how it
  // meets dst; init statements: the value stored (a reduction's identity; 0 for contractions).
  Expr value;
  Reduce reduce = Reduce::none;
  double init_value = 0;
  // Lowering (codegen/lowering.hpp) only: in a vectorized loop emitted as vector code, the
  // destination is strided, so the source is read as a vector and stored lane by lane.
  bool scatter = false;
  bool operator==(const Stmt&) const = default;
};

// A loop stepped over one residue class of a strided read (the taps of a transposed
// convolution): the loop variable v starts where `residue` = 0 (mod divisor) and steps by the
// divisor, so that test holds in its whole body. `rest` is the residue without v's term, whose
// coefficient is `coeff` (1 or divisor - 1). Set by the step_phases pass.
struct PhaseStep {
  AffineExpr residue;
  std::int64_t divisor = 1;
  AffineExpr rest;
  std::int64_t coeff = 1;
  bool operator==(const PhaseStep&) const = default;
};

// What codegen's lowering passes decided for a loop (codegen/lowering.hpp). Schedule
// transformations never set it: a nest replayed from a trace always holds the defaults.
struct LoopLowering {
  std::int64_t begin = 0;          // split_tails: this copy runs [begin, end)
  std::int64_t end = -1;           // -1: to the extent
  bool split_part = false;         // one of the two copies of a tail-split loop
  std::string note;                // printed in a comment before the loop, after its name
  std::optional<PhaseStep> phase;  // step_phases
  bool vector_code = false;        // mark_vector_loops: a vectorized loop emitted as vector statements
  bool operator==(const LoopLowering&) const = default;
};

struct Node {
  enum class Type { loop, stmt };
  Type type = Type::stmt;

  // loop
  std::string var;
  std::int64_t extent = 0;
  LoopKind kind = LoopKind::serial;
  std::vector<Binding> bindings;  // variables this loop defines besides `var` (after fuse)
  std::vector<Node> body;
  LoopLowering lowering;

  // stmt
  Stmt stmt;

  static Node make_loop(std::string var, std::int64_t extent, std::vector<Node> body = {});
  static Node make_stmt(Stmt s);
  bool is_loop() const { return type == Type::loop; }
  bool operator==(const Node&) const = default;
};

enum class BufferKind { input, output, local };

struct BufferDecl {
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;
  BufferKind kind = BufferKind::input;
  std::string alloc_at;       // local buffers: allocated at the top of this loop's body ("" = function scope)
  bool in_registers = false;  // lowering (promote_registers): a local buffer kept in vector registers
  std::int64_t numel() const;
  bool operator==(const BufferDecl&) const = default;
};

struct LoopNest {
  Op op;                            // the computation this nest implements
  std::vector<BufferDecl> buffers;  // op tensors (in op order), then local buffers
  std::vector<Node> body;           // the function body: sibling nests in order

  const BufferDecl* buffer(std::string_view name) const;
  // Depth-first search for the loop named `var`; nullptr when absent.
  const Node* find_loop(std::string_view var) const;
  Node* find_loop(std::string_view var);
  // Loop names from the root down to (and including) `var`; empty when absent.
  std::vector<std::string> path_to(std::string_view var) const;
  std::vector<std::string> loop_names() const;  // depth-first order
  std::string str() const;                      // the printed form meant for people
  bool operator==(const LoopNest&) const = default;
};

// The untransformed nests of an Op (see the file comment). `op` of the result is the folded
// contraction when the op folds.
LoopNest initial_nest(const Op& op);

// Whether stage `st` of multi-stage `op` is a contraction: it sums a product of two or more f32
// reads into an f32 tensor. Its statement is then an update (dst += srcs[0] * srcs[1] ...) that
// pack and cache_write rewrite and the vector printer knows; the schedule space tiles it as a
// register micro-kernel (search/stage_space.cpp).
bool contraction_stage(const Op& op, const Stage& st);

}  // namespace attune
