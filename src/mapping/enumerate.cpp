// The mapping driver: pair operands, enumerate and check one-to-one matches, fuse the valid
// ones into unions, then judge each mapping on what the access rule does not see (dtypes,
// padding) and report.
//
// De-duplication: mappings from different operand pairings can tile the op identically
// (i <- p, j <- k with the op's inputs in order is j <- p, i <- k with them swapped, on a
// square intrinsic: the same tile, transposed). A later pairing's mapping whose identity an
// earlier pairing already produced is dropped.
#include <algorithm>
#include <map>

#include "mapping/mapping.hpp"
#include "mapping/match.hpp"

namespace attune {

namespace {

using mapping::LoopSets;
using mapping::Match;
using mapping::OperandAssignment;

Mapping make_mapping(const Op& op, const Intrinsic& intr, const OperandAssignment& a, const LoopSets& s) {
  Mapping m;
  m.intrinsic = intr.name;
  m.operand_of[intr.compute.output.tensor] = op.output.tensor;
  for (std::size_t k = 0; k < a.input_of.size(); ++k)
    m.operand_of[intr.compute.inputs[k].tensor] = op.inputs[a.input_of[k]].tensor;

  // Padded domain: each intrinsic loop's fused extent rounds up to a multiple of its extent.
  std::int64_t useful = 1, padded = 1;
  std::vector<std::string> mapped;
  for (std::size_t l = 0; l < s.size(); ++l) {
    LoopAssignment la;
    la.intrinsic_loop = intr.compute.vars[l].name;
    la.op_loops = s[l];
    la.extent = intr.compute.vars[l].extent;
    la.op_extent = 1;
    for (const auto& v : s[l]) la.op_extent *= op.var(v).extent;
    useful *= la.op_extent;
    padded *= (la.op_extent + la.extent - 1) / la.extent * la.extent;
    mapped.insert(mapped.end(), s[l].begin(), s[l].end());
    m.loops.push_back(std::move(la));
  }
  for (const auto& v : op.vars) {
    if (std::find(mapped.begin(), mapped.end(), v.name) != mapped.end()) continue;
    useful *= v.extent;
    padded *= v.extent;
  }
  m.useful_iterations = useful;
  m.padded_iterations = padded;
  m.padding_waste = padded > 0 ? 1.0 - static_cast<double>(useful) / static_cast<double>(padded) : 0.0;
  m.valid = true;
  return m;
}

std::string fused_name(const LoopAssignment& la) {
  std::string s;
  for (const auto& v : la.op_loops) s += (s.empty() ? "" : "*") + v;
  return s;
}

// What the access rule does not check: the dtypes and, with no_pad, the fit.
void judge(Mapping& m, const std::string& dtype_reason, const MappingOptions& opt) {
  if (!m.valid) return;
  if (!dtype_reason.empty()) {
    m.valid = false;
    m.reason = dtype_reason;
    return;
  }
  if (!opt.no_pad) return;
  for (const auto& la : m.loops) {
    if (la.op_extent % la.extent == 0) continue;
    m.valid = false;
    m.reason = "extent " + std::to_string(la.op_extent) + " of " + fused_name(la) + " does not fill " +
               la.intrinsic_loop + " (" + std::to_string(la.extent) + ") and padding is off";
    return;
  }
}

// Which op loops meet which intrinsic extent, of which kind, touching which op tensors: the
// same for a mapping and its transpose under the swapped operand pairing, different for two
// orientations within one pairing.
std::string identity(const Mapping& m, const Intrinsic& intr) {
  std::vector<std::string> parts;
  for (const auto& la : m.loops) {
    std::string p = (intr.compute.var(la.intrinsic_loop).reduction ? "R" : "S") + std::to_string(la.extent) + ":";
    for (const auto& v : la.op_loops) p += v + ",";
    std::vector<std::string> touched;
    auto note = [&](const Access& a) {
      for (const auto& e : a.index)
        if (e.uses(la.intrinsic_loop)) touched.push_back(m.operand_of.at(a.tensor));
    };
    note(intr.compute.output);
    for (const auto& in : intr.compute.inputs) note(in);
    std::sort(touched.begin(), touched.end());
    for (const auto& t : touched) p += "/" + t;
    parts.push_back(p);
  }
  std::sort(parts.begin(), parts.end());
  std::string key;
  for (const auto& p : parts) key += p + "|";
  return key;
}

// Keeps insertion order. Within one operand pairing every match is distinct; a mapping from a
// later pairing with the identity of an earlier one is its transposed twin and is dropped (a
// valid twin replaces an invalid one).
struct Collector {
  std::vector<Mapping> items;
  std::multimap<std::string, std::size_t> earlier;  // identities from finished pairings
  std::vector<std::pair<std::string, std::size_t>> current;

  void add(Mapping m, const std::string& key) {
    auto it = earlier.find(key);
    if (it != earlier.end()) {
      std::size_t i = it->second;
      earlier.erase(it);
      if (m.valid && !items[i].valid) items[i] = std::move(m);
      return;
    }
    current.emplace_back(key, items.size());
    items.push_back(std::move(m));
  }
  void next_pairing() {
    for (auto& [k, i] : current) earlier.emplace(k, i);
    current.clear();
  }
};

}  // namespace

MappingReport enumerate_mappings(const Op& op, const Intrinsic& intr, const MappingOptions& opt) {
  MappingReport r;
  r.intrinsic = intr.name;
  std::string why;
  std::vector<OperandAssignment> assigns = mapping::operand_assignments(op, intr, why);
  if (assigns.empty()) {
    r.reason = why;
    return r;
  }
  if (std::string p = mapping::loop_count_problem(op, intr); !p.empty()) {
    r.reason = p;
    return r;
  }
  if (opt.ignore_dtype)
    for (auto& a : assigns) a.dtype_reason.clear();
  // Pairings whose dtypes fit win; when none fits, all are shown, marked with the mismatch.
  bool any_fits = std::any_of(assigns.begin(), assigns.end(), [](const auto& a) { return a.dtype_reason.empty(); });

  Collector singles, fused;
  int rejected = 0, structurally_valid = 0;
  std::string first_rejection;
  bool truncated = false;
  for (const auto& a : assigns) {
    if (any_fits && !a.dtype_reason.empty()) continue;
    std::vector<Match> matches = mapping::one_to_one_matches(op, intr, a);
    std::vector<Match> valid;
    for (const auto& mt : matches) {
      LoopSets s;
      for (const auto& v : mt.op_loop) s.push_back({v});
      Mapping m = make_mapping(op, intr, a, s);
      if (!mt.valid()) {
        m.valid = false;
        m.reason = mt.reason;
        ++rejected;
        if (first_rejection.empty()) first_rejection = mt.reason;
      } else {
        valid.push_back(mt);
        ++structurally_valid;
      }
      judge(m, a.dtype_reason, opt);
      singles.add(m, identity(m, intr));
    }
    std::vector<LoopSets> unions;
    if (!mapping::fused_unions(op, valid, intr.compute.vars.size(), opt.max_unions, unions)) truncated = true;
    for (const auto& s : unions) {
      Mapping m = make_mapping(op, intr, a, s);
      judge(m, a.dtype_reason, opt);
      fused.add(m, identity(m, intr));
    }
    singles.next_pairing();
    fused.next_pairing();
  }

  r.items = std::move(singles.items);
  for (const auto& m : r.items) r.one_to_one += m.valid ? 1 : 0;
  r.mappings = r.one_to_one;
  for (auto& m : fused.items) {
    r.mappings += m.valid ? 1 : 0;
    r.items.push_back(std::move(m));
  }

  if (r.mappings == 0) {
    if (structurally_valid == 0)
      r.reason = "no one-to-one match satisfies the access rule (" + std::to_string(rejected) +
                 " rejected; first: " + first_rejection + ")";
    else if (!any_fits)
      r.reason = "dtype mismatch: " + assigns.front().dtype_reason;
    else
      r.reason = "every mapping needs padding and padding is off";
  }
  if (truncated) {
    std::string note = "fused unions not enumerated (more than " + std::to_string(opt.max_unions) + " combinations)";
    r.reason = r.reason.empty() ? note : r.reason + "; " + note;
  }
  return r;
}

}  // namespace attune
