// libgen/families.hpp — the operator families a generated library exposes, as data.
//
// One Family per template of src/ir/templates.cpp that has a float entry point. It says
//   - which fields the C params struct has (the template's parameter names, so a task's
//     template parameters become a dispatch key without translation);
//   - where each shape parameter sits in the op's tensors, per layout, and which input index
//     holds stride/pad/dilation (how family_match.cpp recovers parameters from a task);
//   - the pointer arguments of the entry point, in the op's tensor declaration order.
// Tests: tests/libgen/family_match_test.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attune::libgen {

struct ParamField {
  std::string name;          // the template parameter ("stride"); also the C struct field
  std::string doc;           // one line for the header
  bool zero_is_one = false;  // a zero-initialised struct means 1 (stride, dilation, groups)
  bool may_be_zero = false;  // pad
};

// Template parameter `param` is dimension `dim` of op tensor `tensor` (declaration order).
struct ShapeSource {
  std::string param;
  int tensor = 0;
  int dim = 0;
};

struct LayoutVariant {
  std::string layout;  // "NCHW"; empty for families without a layout parameter
  std::vector<ShapeSource> shape;
  int window_dim = -1;  // dimension of the first input whose index holds
                        // stride/pad/dilation; -1: none
};

struct Family {
  std::string name;                 // the template name, also the C entry point's suffix
  std::string doc;                  // what it computes, for the header
  std::vector<ParamField> fields;   // struct fields, in order (bias and relu come after)
  std::vector<std::string> inputs;  // the two input pointer names
  std::string output;               // the output pointer name
  std::string bias_index;           // what the bias is indexed by, for the docs
  std::vector<LayoutVariant> variants;
  bool transposed = false;  // window index is (out + pad - tap)/stride
  bool has_layout() const { return !variants.front().layout.empty(); }
};

const std::vector<Family>& families();
const Family* find_family(std::string_view name);  // nullptr when none

// Every layout name any family accepts, in the C enum's order (after DEFAULT = 0).
const std::vector<std::string>& all_layouts();

}  // namespace attune::libgen
