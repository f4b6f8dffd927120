// api/reference_check.hpp — a loaded kernel against attune's reference evaluator, in process.
#pragma once

#include <string>

#include "ir/op.hpp"

namespace attune {

// Calls `kernel` once on the inputs the tuner verifies candidates with (make_buffers with the
// runner's default seed) and compares its output with evaluate()'s at the runner's tolerance.
// Throws Error starting with `what` (e.g. "record 12 of gemm_512") when they differ.
void check_against_reference(const Op& op, void (*kernel)(void* const*), const std::string& what);

}  // namespace attune
