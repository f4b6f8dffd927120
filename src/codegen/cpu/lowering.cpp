// The CPU backend's list of lowering passes (codegen/lowering.hpp), in the order they run.
#include "codegen/lowering.hpp"

namespace attune {

LoopNest lower_cpu_nest(const LoopNest& nest, const CpuCodegenOptions& options) {
  const int lanes = options.vector_bits / 32;
  LoopNest n = mark_vector_loops(nest, lanes);
  n = promote_registers(std::move(n), lanes, options.vector_registers);
  n = step_phases(std::move(n));
  n = split_tails(std::move(n));
  return n;
}

}  // namespace attune
