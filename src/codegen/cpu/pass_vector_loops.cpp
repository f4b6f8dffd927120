// mark_vector_loops: which vectorized loops become vector code.
//
// A vectorized loop `v` becomes extent/lanes vector statements (always expanded: vectorize
// refuses extents above 64) when every statement below it is f32 and each access is either
// invariant in `v` (broadcast) or contiguous in it (`v` only in the last dimension, coefficient
// 1, no bounds check needed there). Otherwise the loop is printed as `#pragma omp simd` and
// gcc's vectoriser takes its chance.
//
// A multi-stage op's compute statements (elementwise math, reductions) are left to `omp simd`:
// the vector printer knows the products of contractions only (its contraction stages are update
// statements, schedule/loopnest.hpp, and their loops can become vector code).
//
// A write-back whose destination is not contiguous in `v` (a convolution vectorized over output
// channels in NCHW, say) still counts when its source is: the source is read as one vector and
// its lanes are stored one by one (Stmt::scatter). The accumulators can then stay in registers;
// only the write-back, once per tile, is scalar.
#include "codegen/cpu/vector_rules.hpp"
#include "codegen/lowering.hpp"

namespace attune {

namespace {

void mark(const LoopNest& nest, std::vector<Node>& nodes, int lanes) {
  for (auto& n : nodes) {
    if (!n.is_loop()) continue;
    if (n.kind != LoopKind::vectorized) {
      mark(nest, n.body, lanes);
      continue;
    }
    bool vector = n.extent % lanes == 0;
    for (const auto& c : n.body)
      vector = vector && !c.is_loop() && c.stmt.kind != StmtKind::compute &&
               (cgen::stmt_vectorizable(nest, c.stmt, n.var) || cgen::stmt_scatterable(nest, c.stmt, n.var));
    n.lowering.vector_code = vector;
    if (vector)
      for (auto& c : n.body) c.stmt.scatter = !cgen::stmt_vectorizable(nest, c.stmt, n.var);
  }
}

}  // namespace

LoopNest mark_vector_loops(LoopNest nest, int lanes) {
  // Decided on an unmarked copy: the rules read the nest, the marks go into the result.
  const LoopNest unmarked = nest;
  mark(unmarked, nest.body, lanes);
  return nest;
}

}  // namespace attune
