// libgen/families.hpp — the operator families a generated library exposes, as data.
//
// One Family per template of src/ir/templates.cpp that has a float entry point: the
// contractions (families.cpp) and the multi-stage ops (families_stages.cpp). It says
//   - which fields the C params struct has (the template's parameter names, so a task's
//     template parameters become a dispatch key without translation) and their C types;
//   - where each shape parameter sits in the op's tensors (or which variable's extent it is),
//     per layout, and which dimension of the first tensor's index holds stride/pad/dilation
//     (how family_match.cpp recovers parameters from a task);
//   - the pointer arguments: every tensor of the op, in its declaration order (the kernel ABI
//     of artifact.hpp), each an input, the output, or a contraction epilogue's optional bias.
// Tests: tests/libgen/family_match_test.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attune::libgen {

// How a template parameter is held in the C struct.
enum class FieldKind {
  integer,  // int: a size, stride or pad
  layout,   // the library's layout enum (see all_layouts())
  choice,   // int: an index into `choices` (0, the template's default, when zero-initialised)
  real,     // double: eps, clip bounds
};

struct ParamField {
  std::string name;          // the template parameter ("stride"); also the C struct field
  std::string doc;           // one line for the header
  bool zero_is_one = false;  // a zero-initialised struct means 1 (stride, dilation, groups)
  bool may_be_zero = false;  // pad
  FieldKind kind = FieldKind::integer;
  std::vector<std::string> choices = {};  // choice: the template's values, its default first
  std::string zero_means = {};       // real: the value a zero-initialised field stands for
                                     // (the template's default); empty: zero is zero
};

// Template parameter `param` is dimension `dim` of op tensor `tensor` (declaration order),
// or, when `var` is set, the extent of that iteration variable (a pooling window).
struct ShapeSource {
  std::string param;
  int tensor = 0;
  int dim = 0;
  std::string var = {};
};

struct LayoutVariant {
  std::string layout;  // "NCHW"; empty for families without a layout parameter
  std::vector<ShapeSource> shape;
  int window_dim = -1;  // dimension of the first tensor's index that holds
                        // stride/pad/dilation; -1: none
};

enum class ArgRole { input, output, bias };

// One pointer argument of the entry point: an op tensor. A `bias` argument is the optional
// epilogue bias of a contraction (declared last, present only when the struct's bias flag is
// set); the fused templates' Bias tensors are plain inputs.
struct PointerArg {
  std::string name;
  ArgRole role = ArgRole::input;
};

struct Family {
  std::string name;                // the template name, also the C entry point's suffix
  std::string doc;                 // what it computes, for the header
  std::vector<ParamField> fields;  // struct fields, in order (bias and relu come after)
  std::vector<PointerArg> args;    // the op's tensors, in declaration order
  std::string bias_index;          // what the bias is indexed by, for the docs
  std::vector<LayoutVariant> variants;
  bool transposed = false;  // window index is (out + pad - tap)/stride
  bool has_layout() const { return !variants.front().layout.empty(); }
  // A contraction epilogue: a bias pointer and the struct's bias and relu flags.
  bool has_bias() const;
  // The pointer arguments in the C signature's order: every input (and the bias) in
  // declaration order, then the output.
  std::vector<PointerArg> c_order() const;
  const PointerArg& output() const;
};

const std::vector<Family>& families();
const Family* find_family(std::string_view name);  // nullptr when none

// Every layout name any family accepts, in the C enum's order (after DEFAULT = 0).
const std::vector<std::string>& all_layouts();

// Shapes written compactly: "C=0.1" (dimension 1 of tensor 0), "R=r" (variable r's extent).
std::vector<ShapeSource> shape_sources(const std::string& text);
// The layout field, documented with its choices ("NCHW | NHWC").
ParamField layout_field(const std::string& choices);
// The families of the multi-stage templates (families_stages.cpp), in the header's order.
void add_stage_families(std::vector<Family>& f);

}  // namespace attune::libgen
