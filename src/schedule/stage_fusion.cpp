// stage_fusion.cpp — see stage_fusion.hpp.
#include "schedule/stage_fusion.hpp"

#include <algorithm>

#include "schedule/analysis.hpp"

namespace attune::sched {

std::string not_an_intermediate(const LoopNest& nest, const std::string& tensor) {
  if (!nest.op.multi_stage()) return "it applies to the stages of multi-stage ops";
  for (const auto& t : nest.op.locals)
    if (t.name == tensor) return "";
  return "'" + tensor + "' is not an intermediate of the op (one written by one stage and read by a later one)";
}

bool writes(const Node& n, const std::string& tensor) {
  if (!n.is_loop()) return n.stmt.dst.tensor == tensor;
  return std::any_of(n.body.begin(), n.body.end(), [&](const Node& c) { return writes(c, tensor); });
}

bool reads(const Node& n, const std::string& tensor) {
  if (n.is_loop()) return std::any_of(n.body.begin(), n.body.end(), [&](const Node& c) { return reads(c, tensor); });
  bool r = false;
  for_each_access(n.stmt, [&](const Access& a) { r = r || (&a != &n.stmt.dst && a.tensor == tensor); });
  return r;
}

std::vector<std::size_t> producer_nests(const LoopNest& nest, const std::string& tensor, std::string& why) {
  std::vector<std::size_t> r;
  for (std::size_t i = 0; i < nest.body.size(); ++i) {
    int mine = 0, others = 0;
    for_each_stmt({nest.body[i]},
                  [&](const Stmt& s, const std::vector<const Node*>&) { ++(s.dst.tensor == tensor ? mine : others); });
    if (mine > 0 && others > 0) {
      why = "'" + tensor + "' is already computed inside another stage's loops";
      return {};
    }
    if (mine > 0) r.push_back(i);
  }
  if (r.empty()) why = "no statement writes '" + tensor + "'";
  return r;
}

}  // namespace attune::sched
