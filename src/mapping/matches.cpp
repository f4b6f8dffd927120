// One-to-one matches: every intrinsic loop takes one op loop of the same kind, no op loop twice.
#include <map>

#include "mapping/access_rule.hpp"
#include "mapping/match.hpp"

namespace attune::mapping {

namespace {

std::string plural(std::size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

// The first operand pair the access rule rejects, or "".
std::string check_match(const Op& op, const Intrinsic& intr, const OperandAssignment& a,
                        const std::vector<std::string>& op_loop) {
  std::map<std::string, std::string> loop_of;
  for (std::size_t l = 0; l < op_loop.size(); ++l) loop_of[op_loop[l]] = intr.compute.vars[l].name;
  if (auto r = check_operand(op.output, intr.compute.output, loop_of)) return *r;
  for (std::size_t k = 0; k < a.input_of.size(); ++k)
    if (auto r = check_operand(op.inputs[a.input_of[k]], intr.compute.inputs[k], loop_of)) return *r;
  return {};
}

void extend(const Op& op, const Intrinsic& intr, const OperandAssignment& a, std::vector<std::string>& chosen,
            std::vector<Match>& out) {
  std::size_t l = chosen.size();
  if (l == intr.compute.vars.size()) {
    out.push_back({chosen, check_match(op, intr, a, chosen)});
    return;
  }
  bool red = intr.compute.vars[l].reduction;
  for (const auto& v : op.vars) {
    if (v.reduction != red) continue;
    bool used = false;
    for (const auto& c : chosen) used = used || c == v.name;
    if (used) continue;
    chosen.push_back(v.name);
    extend(op, intr, a, chosen, out);
    chosen.pop_back();
  }
}

}  // namespace

std::string loop_count_problem(const Op& op, const Intrinsic& intr) {
  std::size_t os = op.spatial_vars().size(), orr = op.reduction_vars().size();
  std::size_t is = intr.compute.spatial_vars().size(), ir = intr.compute.reduction_vars().size();
  if (ir > 0 && orr == 0) return "no reduction loop";
  if (os < is) return "op has " + plural(os, "spatial loop") + ", intrinsic needs " + std::to_string(is);
  if (orr < ir) return "op has " + plural(orr, "reduction loop") + ", intrinsic needs " + std::to_string(ir);
  return {};
}

std::vector<Match> one_to_one_matches(const Op& op, const Intrinsic& intr, const OperandAssignment& a) {
  std::vector<Match> out;
  std::vector<std::string> chosen;
  extend(op, intr, a, chosen, out);
  return out;
}

}  // namespace attune::mapping
