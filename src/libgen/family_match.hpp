// libgen/family_match.hpp — which template (family and parameters) a tuned task came from.
//
// A task stores only its canonical spec. match_family() guesses the template parameters of
// each family and layout from the op's tensor shapes and variable extents, its first tensor's
// window index (stride, pad, dilation), each value of a choice parameter (gelu's form) and,
// for real parameters (eps, clip bounds), the constants at the places a probe instantiation
// puts them; it instantiates the template and accepts the guess only when the canonical specs
// are equal: a match is exact, never a heuristic. Raw specs match nothing.
// Tests: tests/libgen/family_match_test.cpp.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ir/op.hpp"
#include "libgen/families.hpp"

namespace attune::libgen {

struct FamilyMatch {
  const Family* family = nullptr;
  // Every parameter of the template (defaults filled in), e.g. {"M": "32", "dtype": "f32",
  // "epilogue": "bias_relu", ...}: instantiate_template(family->name, params) is the task's op.
  std::map<std::string, std::string> params;

  bool is_f32() const;  // the contraction's dtype; the multi-stage templates are all f32
  bool bias() const;
  bool relu() const;
};

std::optional<FamilyMatch> match_family(const Op& op);

}  // namespace attune::libgen
