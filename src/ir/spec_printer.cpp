// spec_printer.cpp — print_spec() and canonical_spec(): the text form of an Op, written so that
// parse_spec(print_spec(op)) == op. `var` lines appear only where inference would not give the
// variable's extent.
#include <algorithm>
#include <string>

#include "extent_inference.hpp"
#include "ir/op.hpp"

namespace attune {

namespace {

std::string tensor_line(const Tensor& t) {
  std::string s = "tensor " + t.name + "[";
  for (std::size_t i = 0; i < t.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(t.shape[i]);
  return s + "] " + std::string(dtype_name(t.dtype)) + (t.constant ? " const" : "") + "\n";
}

// Tensors, then intermediates (the parser tells them apart by who writes and reads them), then
// `var` lines where some statement would infer another extent, then the statements.
std::string print_stages(const Op& op) {
  std::string s;
  for (const auto& t : op.tensors) s += tensor_line(t);
  for (const auto& t : op.locals) s += tensor_line(t);
  std::vector<Tensor> all = op.tensors;
  all.insert(all.end(), op.locals.begin(), op.locals.end());
  std::vector<std::string> declared;
  for (const auto& st : op.stages) {
    std::vector<Access> reads;
    for_each_read(st.value, [&](const Access& a) { reads.push_back(a); });
    for (const auto& v : st.vars) {
      if (std::find(declared.begin(), declared.end(), v.name) != declared.end()) continue;
      auto inf = ir::infer_extent(all, st.out, reads, std::nullopt, v.name);
      if (inf.extent && *inf.extent == v.extent) continue;
      s += "var " + v.name + " < " + std::to_string(v.extent) + "\n";
      declared.push_back(v.name);
    }
  }
  for (const auto& st : op.stages) s += st.str() + "\n";
  return s;
}

}  // namespace

std::string print_spec(const Op& op) {
  std::string s;
  if (!op.name.empty()) s += "op " + op.name + "\n";
  if (op.multi_stage()) return s + print_stages(op);
  for (const auto& t : op.tensors) s += tensor_line(t);
  for (const auto& v : op.vars) {
    auto inf = ir::infer_extent(op.tensors, op.output, op.inputs, op.epilogue.bias, v.name);
    if (!inf.extent || *inf.extent != v.extent) s += "var " + v.name + " < " + std::to_string(v.extent) + "\n";
  }
  s += op.output.str() + " +=";
  for (std::size_t i = 0; i < op.inputs.size(); ++i) s += (i ? " * " : " ") + op.inputs[i].str();
  s += "\n";
  if (op.epilogue.bias) s += "epilogue bias " + op.epilogue.bias->str() + "\n";
  if (op.epilogue.relu) s += "epilogue relu\n";
  if (op.epilogue.value) s += "epilogue " + op.output.str() + " = " + op.epilogue.value->str() + "\n";
  return s;
}

std::string canonical_spec(const Op& op) {
  Op unnamed = op;
  unnamed.name.clear();
  return print_spec(unnamed);
}

}  // namespace attune
