// promote_registers: local buffers kept in vector registers.
//
// A local f32 buffer of at most the register tile's budget of vectors (VectorRegisters::
// accumulators(): the rest of the file feeds the tile) is promoted to vector variables when
// every access to it sits in a loop that mark_vector_loops made vector code, contiguous in that
// loop, with all its other index variables unrolled: its indices are then constants in every
// copy, and the accumulators of a register-blocked micro-kernel stay in registers instead of
// going through memory. Bound variables (of a fused loop) are never constants, so a fused loop
// disqualifies what it indexes.
#include <algorithm>
#include <set>

#include "codegen/cpu/vector_rules.hpp"
#include "codegen/lowering.hpp"

namespace attune {

namespace {

struct Walk {
  const LoopNest& nest;
  std::set<std::string> bad, seen;
  std::vector<std::string> unrolled;
  std::string vec;  // the innermost enclosing vector-code loop ("" when none)

  void nodes(const std::vector<Node>& ns) {
    for (const auto& n : ns) {
      if (!n.is_loop()) {
        stmt(n.stmt);
        continue;
      }
      const auto saved_vec = vec;
      const auto saved_unrolled = unrolled.size();
      if (n.kind == LoopKind::unrolled) unrolled.push_back(n.var);
      if (n.kind == LoopKind::vectorized) vec = n.lowering.vector_code ? n.var : "";
      nodes(n.body);
      vec = saved_vec;
      unrolled.resize(saved_unrolled);
    }
  }
  void stmt(const Stmt& s) {
    for (const Access* a : cgen::accesses(s)) {
      if (nest.buffer(a->tensor)->kind != BufferKind::local) continue;
      seen.insert(a->tensor);
      bool ok = !vec.empty() && cgen::uses_only_last(*a, vec);
      for (const auto& e : a->index)
        for (const auto& [x, c] : e.terms)
          if (x != vec && std::find(unrolled.begin(), unrolled.end(), x) == unrolled.end()) ok = false;
      if (!ok) bad.insert(a->tensor);
    }
  }
};

}  // namespace

LoopNest promote_registers(LoopNest nest, int lanes, int vector_registers) {
  Walk walk{nest, {}, {}, {}, {}};
  walk.nodes(nest.body);
  const int budget = VectorRegisters{lanes, vector_registers}.accumulators();
  for (auto& b : nest.buffers) {
    if (b.kind != BufferKind::local || b.dtype != DType::f32 || !walk.seen.count(b.name) || walk.bad.count(b.name))
      continue;
    if (b.shape.empty() || b.shape.back() % lanes != 0) continue;
    if (b.numel() / lanes > budget) continue;
    b.in_registers = true;
  }
  return nest;
}

}  // namespace attune
