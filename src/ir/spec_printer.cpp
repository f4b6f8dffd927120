// spec_printer.cpp — print_spec() and canonical_spec(): the text form of an Op, written so that
// parse_spec(print_spec(op)) == op. `var` lines appear only where inference would not give the
// variable's extent.
#include <string>

#include "extent_inference.hpp"
#include "ir/op.hpp"

namespace attune {

std::string print_spec(const Op& op) {
  std::string s;
  if (!op.name.empty()) s += "op " + op.name + "\n";
  for (const auto& t : op.tensors) {
    s += "tensor " + t.name + "[";
    for (std::size_t i = 0; i < t.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(t.shape[i]);
    s += "] " + std::string(dtype_name(t.dtype)) + "\n";
  }
  for (const auto& v : op.vars) {
    auto inf = ir::infer_extent(op.tensors, op.output, op.inputs, op.epilogue.bias, v.name);
    if (!inf.extent || *inf.extent != v.extent) s += "var " + v.name + " < " + std::to_string(v.extent) + "\n";
  }
  s += op.output.str() + " +=";
  for (std::size_t i = 0; i < op.inputs.size(); ++i) s += (i ? " * " : " ") + op.inputs[i].str();
  s += "\n";
  if (op.epilogue.bias) s += "epilogue bias " + op.epilogue.bias->str() + "\n";
  if (op.epilogue.relu) s += "epilogue relu\n";
  return s;
}

std::string canonical_spec(const Op& op) {
  Op unnamed = op;
  unnamed.name.clear();
  return print_spec(unnamed);
}

}  // namespace attune
