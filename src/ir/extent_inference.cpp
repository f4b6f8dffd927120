// extent_inference.cpp — see extent_inference.hpp.
#include "extent_inference.hpp"

namespace attune::ir {

namespace {

struct Candidate {
  std::string tensor;
  std::size_t dim;
  std::int64_t size;
};

void collect(const std::vector<Tensor>& tensors, const Access& a, const std::string& var, std::vector<Candidate>& out) {
  const Tensor* t = nullptr;
  for (const auto& x : tensors)
    if (x.name == a.tensor) t = &x;
  if (!t) return;
  for (std::size_t d = 0; d < a.index.size() && d < t->shape.size(); ++d) {
    auto v = a.index[d].as_single_var();
    if (v && *v == var) out.push_back({t->name, d, t->shape[d]});
  }
}

InferredExtent agree(const std::vector<Candidate>& cs) {
  InferredExtent r;
  if (cs.empty()) return r;
  bool same = true;
  for (const auto& c : cs) same = same && c.size == cs[0].size;
  if (same) {
    r.extent = cs[0].size;
    return r;
  }
  for (const auto& c : cs) {
    if (!r.ambiguity.empty()) r.ambiguity += ", ";
    r.ambiguity += c.tensor + " dim " + std::to_string(c.dim) + " is " + std::to_string(c.size);
  }
  return r;
}

}  // namespace

InferredExtent infer_extent(const std::vector<Tensor>& tensors, const Access& output, const std::vector<Access>& inputs,
                            const std::optional<Access>& bias, const std::string& var) {
  std::vector<Candidate> out_cs;
  collect(tensors, output, var, out_cs);
  if (!out_cs.empty()) return agree(out_cs);
  std::vector<Candidate> cs;
  for (const auto& a : inputs) collect(tensors, a, var, cs);
  if (bias) collect(tensors, *bias, var, cs);
  return agree(cs);
}

}  // namespace attune::ir
