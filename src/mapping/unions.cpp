// Unions of valid one-to-one matches. A union gives each intrinsic loop a set of op loops
// (fused, e.g. i <- {p, q} reads rows p*Q + q of an im2col-staged tile). A choice of sets
// S_l is reachable iff the valid matches lying inside it (m[l] in S_l for every l) together
// cover every S_l: then their union is exactly that choice. Enumerating the choices instead
// of subsets of matches keeps the work at prod(2^|U_l| - 1), U_l being the op loops that some
// valid match puts on loop l, and gives each union once.
#include <algorithm>
#include <set>

#include "mapping/match.hpp"

namespace attune::mapping {

namespace {

// Per intrinsic loop, the op loops any valid match puts there, in the op's var order.
LoopSets candidates(const Op& op, const std::vector<Match>& valid, std::size_t n_loops) {
  LoopSets u(n_loops);
  for (std::size_t l = 0; l < n_loops; ++l)
    for (const auto& v : op.vars)
      for (const auto& m : valid)
        if (m.op_loop[l] == v.name) {
          u[l].push_back(v.name);
          break;
        }
  return u;
}

bool reachable(const LoopSets& s, const std::vector<Match>& valid) {
  std::vector<std::set<std::string>> covered(s.size());
  for (const auto& m : valid) {
    bool inside = true;
    for (std::size_t l = 0; l < s.size() && inside; ++l)
      inside = std::find(s[l].begin(), s[l].end(), m.op_loop[l]) != s[l].end();
    if (!inside) continue;
    for (std::size_t l = 0; l < s.size(); ++l) covered[l].insert(m.op_loop[l]);
  }
  for (std::size_t l = 0; l < s.size(); ++l)
    if (covered[l].size() != s[l].size()) return false;
  return true;
}

}  // namespace

bool fused_unions(const Op& op, const std::vector<Match>& valid, std::size_t n_loops, std::size_t max_unions,
                  std::vector<LoopSets>& out) {
  out.clear();
  if (valid.empty()) return true;
  LoopSets u = candidates(op, valid, n_loops);
  std::size_t total = 1;
  for (const auto& c : u) {
    if (c.size() >= 30) return false;
    std::size_t choices = (std::size_t{1} << c.size()) - 1;
    if (total > max_unions / choices) return false;
    total *= choices;
  }
  // Odometer over one non-empty subset mask per intrinsic loop, first loop outermost.
  std::vector<std::size_t> mask(n_loops, 1);
  while (true) {
    LoopSets s(n_loops);
    std::set<std::string> seen;
    bool disjoint = true, fused = false;
    for (std::size_t l = 0; l < n_loops; ++l) {
      for (std::size_t b = 0; b < u[l].size(); ++b)
        if (mask[l] >> b & 1) {
          s[l].push_back(u[l][b]);
          disjoint = disjoint && seen.insert(u[l][b]).second;
        }
      fused = fused || s[l].size() > 1;
    }
    if (disjoint && fused && reachable(s, valid)) out.push_back(std::move(s));
    bool done = true;
    for (std::size_t l = n_loops; l-- > 0;) {
      if (++mask[l] < (std::size_t{1} << u[l].size())) {
        done = false;
        break;
      }
      mask[l] = 1;
    }
    if (done) break;
  }
  auto size_of = [](const LoopSets& s) {
    std::size_t n = 0;
    for (const auto& x : s) n += x.size();
    return n;
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const LoopSets& a, const LoopSets& b) { return size_of(a) < size_of(b); });
  return true;
}

}  // namespace attune::mapping
