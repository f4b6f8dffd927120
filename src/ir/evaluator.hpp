// ir/evaluator.hpp — the reference evaluator: the oracle for every correctness check.
//
// Computes an Op directly from its definition: for each point of the iteration domain, the
// product of the inputs (zero outside bounds or on an inexact division) is accumulated into
// the output; floats accumulate in double and are rounded once at the end, integers exactly
// in int64 (then wrapped into the output dtype). The epilogue is then applied per element.
#pragma once

#include <vector>

#include "ir/buffer.hpp"
#include "ir/op.hpp"

namespace attune {

// `tensors` holds one Buffer per op tensor (op.tensors order), e.g. from make_buffers().
// The output buffer is overwritten. Throws Error on shape or dtype mismatch.
// A multi-stage op (Op::stages) is computed by evaluate_stages (stage_evaluator.cpp).
void evaluate(const Op& op, std::vector<Buffer>& tensors);
void evaluate_stages(const Op& op, std::vector<Buffer>& tensors);

}  // namespace attune
