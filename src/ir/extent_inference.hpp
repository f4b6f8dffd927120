// extent_inference.hpp — the rule that gives a loop variable its extent from the tensor
// dimensions it indexes alone. Shared by the parser (to fill IterVar::extent) and the printer
// (to decide which variables need an explicit `var x < N` line).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/op.hpp"

namespace attune::ir {

struct InferredExtent {
  std::optional<std::int64_t> extent;  // set when the rule gives one answer
  std::string ambiguity;               // "A dim 1 is 4, B dim 0 is 5" when sizes disagree
};

// Rule: candidates are the dimensions of tensors accessed (output, inputs, bias) where the index
// is exactly `var`. A spatial variable that indexes output dimensions alone takes the output's
// size (the output's candidates must agree); otherwise all candidates must agree.
// `tensors` must hold every accessed tensor with the right rank.
InferredExtent infer_extent(const std::vector<Tensor>& tensors, const Access& output, const std::vector<Access>& inputs,
                            const std::optional<Access>& bias, const std::string& var);

}  // namespace attune::ir
