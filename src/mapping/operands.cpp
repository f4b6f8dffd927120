// Pairing operands by role: the op's output with the intrinsic's output, the op's inputs with
// the intrinsic's inputs in every order (C = A*B and C = B*A are the same product, so a
// mapping may put the op's second input where the intrinsic expects its first).
#include <algorithm>
#include <numeric>

#include "mapping/match.hpp"

namespace attune::mapping {

namespace {

std::string dtype_problem(const Op& op, const Access& op_acc, const Intrinsic& intr, const Access& intr_acc) {
  DType have = op.tensor(op_acc.tensor).dtype;
  DType want = intr.compute.tensor(intr_acc.tensor).dtype;
  if (have == want) return {};
  return "dtype " + std::string(dtype_name(have)) + " does not match intrinsic " + std::string(dtype_name(want));
}

}  // namespace

std::vector<OperandAssignment> operand_assignments(const Op& op, const Intrinsic& intr, std::string& why_none) {
  std::size_t n = intr.compute.inputs.size();
  if (op.inputs.size() != n) {
    why_none = "op has " + std::to_string(op.inputs.size()) + " input" + (op.inputs.size() == 1 ? "" : "s") +
               ", intrinsic has " + std::to_string(n);
    return {};
  }
  std::vector<std::size_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::vector<OperandAssignment> out;
  do {
    OperandAssignment a;
    a.input_of = perm;
    a.dtype_reason = dtype_problem(op, op.output, intr, intr.compute.output);
    for (std::size_t k = 0; k < n && a.dtype_reason.empty(); ++k)
      a.dtype_reason = dtype_problem(op, op.inputs[perm[k]], intr, intr.compute.inputs[k]);
    out.push_back(std::move(a));
  } while (std::next_permutation(perm.begin(), perm.end()));
  return out;
}

}  // namespace attune::mapping
