// Shared queries and rewrites over a LoopNest, used by the transformations (and by codegen and
// the feature extractors through include/attune/nest_analysis.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "schedule/loopnest.hpp"

namespace attune::sched {

// Calls f(stmt, loops) for every statement under `nodes`; `loops` are the enclosing loops,
// outermost first (starting from `outer`).
void for_each_stmt(const std::vector<Node>& nodes,
                   const std::function<void(const Stmt&, const std::vector<const Node*>&)>& f,
                   std::vector<const Node*> outer = {});
void for_each_stmt_mut(std::vector<Node>& nodes, const std::function<void(Stmt&)>& f);
void for_each_loop_mut(std::vector<Node>& nodes, const std::function<void(Node&)>& f);

// Every access of a statement: dst, srcs, the carried bias and the reads of a compute value.
void for_each_access(Stmt& s, const std::function<void(Access&)>& f);
void for_each_access(const Stmt& s, const std::function<void(const Access&)>& f);

// Replace variable v by e in every statement (accesses, guards) and binding below `nodes`.
void substitute(std::vector<Node>& nodes, const std::string& v, const AffineExpr& e);

// The body that holds loop `var` (the root body when it is a top-level loop) and its position.
struct Slot {
  std::vector<Node>* body = nullptr;
  std::size_t index = 0;
};
Slot find_slot(LoopNest& nest, const std::string& var);
Slot find_slot(std::vector<Node>& nodes, const std::string& var);  // {nullptr, 0} when absent

// The variables a loop defines: its own and those of its bindings.
std::vector<std::string> iteration_vars(const Node& loop);
// The bound variables no other binding of the same loop is defined from (what statements use).
std::vector<std::string> leaf_vars(const Node& loop);
// Every loop at or below `nodes`, depth first.
std::vector<const Node*> all_loops(const std::vector<Node>& nodes);
// Every variable defined by loops at or below `nodes`.
std::vector<std::string> vars_defined_in(const std::vector<Node>& nodes);

// True when writes through `index` from different iterations of `loop` cannot hit the same
// element: every leaf variable of the loop appears, recoverable, in some dimension.
bool write_separates_iterations(const LoopNest& nest, const Node& loop, const std::vector<AffineExpr>& index);

// Range [lo, hi] of an expression over the loops' variables (bound variables use their extent).
// Saturates at the int64 limits (a trace's numbers may be anything): still a safe bound.
struct Range {
  std::int64_t lo = 0, hi = 0;
};
Range range_of(const LoopNest& nest, const AffineExpr& e);
// a * b and a + b clamped to the int64 range, for sizes and bounds computed from a trace's
// numbers: a size past every limit stays past it instead of wrapping around.
std::int64_t saturating_mul(std::int64_t a, std::int64_t b);
std::int64_t saturating_add(std::int64_t a, std::int64_t b);
std::int64_t extent_of_var(const LoopNest& nest, const std::string& var);  // 0 when unknown

// The code generator prints a loop whose body may read outside a tensor (padding) or past a
// split's last whole tile as two or three copies (codegen/cpu/pass_split_tails.cpp), nesting
// such splits at most this deep; unroll's size estimate (annotate.cpp) counts those copies.
constexpr int kMaxBoundarySplitDepth = 2;

bool is_local(const LoopNest& nest, const std::string& buffer);
std::string fresh_buffer_name(const LoopNest& nest, const std::string& base);

}  // namespace attune::sched
