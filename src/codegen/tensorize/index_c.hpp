// Index arithmetic shared by the tensorizing emitters (CPU, CUDA) and the CUDA bundle's
// reference loops: op variables as C variables, flat offsets, read guards and the
// decomposition of a fused index back into the op loops it stands for. Everything is plain
// C text valid in C99, C++ and CUDA.
#pragma once

#include <string>
#include <vector>

#include "ir/op.hpp"

namespace attune::tgen {

std::string cvar(const std::string& op_var);  // "v_p"
// An affine expression over cvar()s, ignoring the divisor; parenthesised.
std::string c_affine(const AffineExpr& e);
// The condition under which `a` reads inside its tensor (and divides exactly), given that
// every op variable lies in [0, extent). "" when interval analysis proves it always holds.
std::string read_guard(const Op& op, const Access& a);
// The row-major element offset of `a` (exact divisions assumed: guard first).
std::string flat_offset(const Op& op, const Access& a);
// Declarations of the op loops `loops` (outermost first) from the fused index expression
// `fused` in [0, product of their extents): "const IT v_p = (F / 7);", "const IT v_q = (F % 7);".
std::vector<std::string> decompose(const Op& op, const std::vector<std::string>& loops, const std::string& fused,
                                   const std::string& index_type);
// `value` after the op's epilogue (bias add with a guarded read, relu); `value` when none.
// `bias_cast` converts the bias element to the accumulator type: "(float)" or a function name.
std::string apply_epilogue(const Op& op, const std::string& value, const std::string& bias_cast);
// A C literal of the product of the extents of `loops` (1 when empty).
std::int64_t extent_product(const Op& op, const std::vector<std::string>& loops);

}  // namespace attune::tgen
