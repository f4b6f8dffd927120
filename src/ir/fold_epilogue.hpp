// ir/fold_epilogue.hpp — a multi-stage op that is a contraction followed by pointwise math on
// its result, rewritten as one contraction whose epilogue is that math (Epilogue::value).
//
//   Acc[m, n] += A[m, k] * B[k, n]                     A contraction with epilogue
//   Y[m, n] = gelu(Acc[m, n] + Bias[n])        ==>     Y[m, n] += A[m, k] * B[k, n]
//                                                      epilogue Y[m, n] = gelu(Y[m, n] + Bias[n])
//
// Why: the contraction's schedules (register tiles, packing, cache_write, whose write-back
// applies the epilogue while the tile is still in registers) are the ones that make a GEMM or a
// convolution fast; as a stage of a multi-stage op the same sum would run as scalar loops and
// its result would make a round trip through memory. The op a user wrote stays what tasks,
// records and the reference check use; only the CPU loop nest is built from the folded form
// (schedule/loopnest.hpp).
#pragma once

#include <optional>

#include "ir/op.hpp"

namespace attune {

// The folded contraction, when `op` has this form (and nullopt otherwise):
//   - its first stage is a `+=` whose value is a product of reads of the op's inputs, into an
//     f32 intermediate indexed by its variables in order (the contraction);
//   - every other stage is an `=` whose reads of the contraction's result and of its earlier
//     intermediates, each by distinct plain variables, tie each of its variables to one of the
//     contraction's (the same one in every read), with matching extents; the last writes the
//     op's f32 output, possibly permuted (Y[n, k, p, q] = relu(Acc[n, p, q, k])).
// Each later stage's variables are renamed to the contraction's they are tied to.
std::optional<Op> fold_epilogue(const Op& op);

// True when `e` is a product of reads (A[..] * B[..] * ...): what a contraction sums. A stage that
// `+=`s such a value into an f32 tensor runs as a contraction's update statement in its nest
// (schedule/loopnest.hpp), so the contraction's schedules apply to it.
bool product_of_reads(const Expr& e);

}  // namespace attune
