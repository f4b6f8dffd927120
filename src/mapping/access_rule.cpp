#include "mapping/access_rule.hpp"

#include <set>
#include <vector>

namespace attune::mapping {

std::optional<std::string> check_operand(const Access& op_access, const Access& intr_access,
                                         const std::map<std::string, std::string>& loop_of) {
  const std::string& t = op_access.tensor;
  std::map<std::string, std::size_t> dim_of;  // intrinsic loop -> op dimension holding it
  for (std::size_t d = 0; d < op_access.index.size(); ++d) {
    const AffineExpr& e = op_access.index[d];
    std::vector<std::pair<std::string, std::int64_t>> matched;
    for (const auto& [v, c] : e.terms)
      if (loop_of.count(v)) matched.emplace_back(v, c);
    if (matched.empty()) continue;  // constant once the other loops are fixed
    std::string where = t + "[" + std::to_string(d) + "] '" + e.str() + "'";
    if (matched.size() > 1) return where + " combines " + matched[0].first + " and " + matched[1].first;
    const auto& [v, c] = matched[0];
    if (e.divisor != 1) return where + " divides " + v;
    if (c <= 0) return where + " has a negative stride for " + v;
    const std::string& loop = loop_of.at(v);
    if (dim_of.count(loop)) return t + " uses " + v + " in two dimensions";
    dim_of[loop] = d;
  }
  std::set<std::string> intr_loops;
  for (const auto& e : intr_access.index) intr_loops.insert(*e.as_single_var());
  for (const auto& [loop, d] : dim_of) {
    if (!intr_loops.count(loop)) {
      std::string v;
      for (const auto& [ov, il] : loop_of)
        if (il == loop) v = ov;
      return t + " uses " + v + " (as " + loop + ") but intrinsic " + intr_access.tensor + " has no " + loop;
    }
  }
  for (const auto& loop : intr_loops) {
    if (dim_of.count(loop)) continue;
    std::string v;
    for (const auto& [ov, il] : loop_of)
      if (il == loop) v = ov;
    return t + " does not use " + v + " (as " + loop + ") but intrinsic " + intr_access.tensor + " does";
  }
  return std::nullopt;
}

}  // namespace attune::mapping
