// The C of multi-stage ops' elementwise math: float literals and the helpers every kernel of a
// multi-stage op starts with (contraction kernels do not carry them).
#pragma once

#include <string>

#include "codegen/stage_expr_c.hpp"  // c_float, shared with the CUDA backend

namespace attune::cgen {

// attune_exp, attune_erf, attune_tanh, attune_max, attune_min: branch-free, so that loops over
// them vectorise under `omp simd`. Their accuracy against double-precision libm is tested in
// tests/runtime/math_accuracy_test.cpp (the bounds are stated in the C).
const std::string& math_prelude();

}  // namespace attune::cgen
