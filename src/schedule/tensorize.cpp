// tensorize: a valid mapping becomes a TensorizePlan (schedule/tensorize.hpp).
//
// Preconditions (tensorize_applicable): the mapping is valid; the intrinsic is GEMM-shaped,
// i.e. two inputs, one reduction loop, one spatial loop absent from its first input (the
// column j) and at most one spatial loop present in it (the row i); its emit kind is one some
// backend implements. Everything else (guards, padding, staging) the backends handle.
#include "schedule/tensorize.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "ir/error.hpp"

namespace attune {

namespace {

bool uses(const Access& a, const std::string& v) {
  return std::any_of(a.index.begin(), a.index.end(), [&](const AffineExpr& e) { return e.uses(v); });
}

struct Roles {
  std::string row, col, red;  // intrinsic loop names; row may be empty
  std::string problem;
};

Roles roles_of(const Intrinsic& intr) {
  Roles r;
  const Op& c = intr.compute;
  if (c.inputs.size() != 2) {
    r.problem = "intrinsic " + intr.name + " has " + std::to_string(c.inputs.size()) + " inputs, not 2";
    return r;
  }
  for (const auto& v : c.vars) {
    std::string& slot = v.reduction ? r.red : uses(c.inputs[0], v.name) ? r.row : r.col;
    if (!slot.empty()) {
      r.problem = "intrinsic " + intr.name + " is not GEMM-shaped (two loops play " + slot + ")";
      return r;
    }
    slot = v.name;
  }
  if (r.col.empty() || r.red.empty())
    r.problem = "intrinsic " + intr.name + " is not GEMM-shaped (needs a column and a reduction loop)";
  return r;
}

FusedDim dim_of(const Op& op, const Intrinsic& intr, const Mapping& m, const std::string& loop) {
  FusedDim d;
  if (loop.empty()) return d;
  d.intrinsic_loop = loop;
  d.tile = intr.extent(loop);
  for (const auto& la : m.loops)
    if (la.intrinsic_loop == loop) d.op_loops = la.op_loops;
  d.extent = 1;
  for (const auto& v : d.op_loops) d.extent *= op.var(v).extent;
  return d;
}

// What the default choice maximises: iterations on the intrinsic, then little padding.
bool better(const Mapping& a, const Mapping& b) {
  auto on_intrinsic = [](const Mapping& m) {
    std::int64_t p = 1;
    for (const auto& l : m.loops) p *= l.op_extent;
    return p;
  };
  if (on_intrinsic(a) != on_intrinsic(b)) return on_intrinsic(a) > on_intrinsic(b);
  return a.padding_waste < b.padding_waste;
}

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

}  // namespace

bool tensorize_supported_kind(const std::string& k) {
  return k == "avx2_fma_bcast" || k == "avx512_fma_bcast" || k == "avx512_vnni" || k == "mma_sync" || k == "wmma";
}

Applicability tensorize_applicable(const Op& op, const Intrinsic& intr, const Mapping& m) {
  if (m.intrinsic != intr.name) return Applicability::no("mapping is onto " + m.intrinsic + ", not " + intr.name);
  if (!m.valid) return Applicability::no("mapping " + m.str() + " is invalid: " + m.reason);
  if (!tensorize_supported_kind(intr.emit_kind))
    return Applicability::no("no backend emits intrinsic kind '" + intr.emit_kind + "' (" + intr.name + ")");
  if (Roles r = roles_of(intr); !r.problem.empty()) return Applicability::no(r.problem);
  if (op.multi_stage()) return Applicability::no("a multi-stage op: intrinsics are mapped onto contractions only");
  if (op.epilogue.value)
    return Applicability::no("an epilogue expression: the intrinsic backends apply a bias and relu only");
  if (op.inputs.size() != 2) return Applicability::no("op has " + std::to_string(op.inputs.size()) + " inputs, not 2");
  return Applicability::yes();
}

std::int64_t TensorizePlan::outer_count() const {
  std::int64_t p = 1;
  for (const auto& v : outer_spatial) p *= op.var(v).extent;
  return p;
}

namespace {

// The plan for item `number` (1-based) of `rep`, the mapping report of `op` onto `intr`.
TensorizePlan plan_of(const Op& op, const Intrinsic& intr, const MappingReport& rep, int number) {
  const Mapping& m = rep.items[number - 1];
  if (auto a = tensorize_applicable(op, intr, m); !a)
    throw Error("--mapping " + std::to_string(number) + ": " + a.reason);

  TensorizePlan p;
  p.op = op;
  p.intrinsic = intr;
  p.mapping = m;
  p.mapping_number = number;
  const Op& c = intr.compute;
  p.a_tensor = m.operand_of.at(c.inputs[0].tensor);
  p.b_tensor = m.operand_of.at(c.inputs[1].tensor);
  p.c_tensor = m.operand_of.at(c.output.tensor);
  const Roles r = roles_of(intr);
  p.m = dim_of(op, intr, m, r.row);
  p.n = dim_of(op, intr, m, r.col);
  p.k = dim_of(op, intr, m, r.red);
  for (const auto& v : op.vars) {
    bool mapped = false;
    for (const auto& la : m.loops)
      mapped = mapped || std::find(la.op_loops.begin(), la.op_loops.end(), v.name) != la.op_loops.end();
    if (mapped) continue;
    (v.reduction ? p.outer_reduction : p.outer_spatial).push_back(v.name);
  }
  // The op's A must be what the intrinsic's A reads: a valid mapping guarantees that A' does
  // not depend on the column loops and B' not on the row loops, which the kernels rely on.
  for (const auto& in : op.inputs)
    if (in.tensor == p.a_tensor)
      for (const auto& v : p.n.op_loops) ATTUNE_CHECK(!uses(in, v), "valid mapping whose A uses column loop " + v);
  return p;
}

}  // namespace

TensorizePlan plan_tensorize(const Op& op, const Intrinsic& intr, int number) {
  const MappingReport rep = enumerate_mappings(op, intr);
  const int total = static_cast<int>(rep.items.size());
  if (number < 0 || number > total)
    throw Error("--mapping " + std::to_string(number) + ": " + intr.name + " has " + std::to_string(total) +
                " mapping candidate" + (total == 1 ? "" : "s") + " for this op" +
                (total ? " (1.." + std::to_string(total) + ")" : "") + (rep.reason.empty() ? "" : "; " + rep.reason));
  if (number == 0) {
    for (int i = 0; i < total; ++i)
      if (rep.items[i].valid && (number == 0 || better(rep.items[i], rep.items[number - 1]))) number = i + 1;
    if (number == 0)
      throw Error("no valid mapping of " + (op.name.empty() ? std::string("the op") : op.name) + " onto " + intr.name +
                  (rep.reason.empty() ? "" : ": " + rep.reason));
  }
  return plan_of(op, intr, rep, number);
}

std::vector<TensorizePlan> plan_every_tensorize(const Op& op, const Intrinsic& intr) {
  std::vector<TensorizePlan> plans;
  if (!tensorize_supported_kind(intr.emit_kind)) return plans;
  const MappingReport rep = enumerate_mappings(op, intr);
  for (std::size_t i = 0; i < rep.items.size(); ++i)
    if (tensorize_applicable(op, intr, rep.items[i])) plans.push_back(plan_of(op, intr, rep, static_cast<int>(i) + 1));
  return plans;
}

std::string TensorizePlan::str() const {
  auto dim = [](const char* name, const FusedDim& d) {
    std::string s = std::string(name) + " = ";
    s += d.op_loops.empty() ? "1" : joined(d.op_loops, "*");
    s += " (" + std::to_string(d.extent) + ", tile " + std::to_string(d.tile) + ", " + std::to_string(d.tiles()) +
         " tiles";
    if (d.tiles() * d.tile != d.extent) s += ", padded to " + std::to_string(d.tiles() * d.tile);
    return s + ")";
  };
  std::string s = "tensorize " + intrinsic.name + " with mapping #" + std::to_string(mapping_number) + " (" +
                  mapping.str() + "): A' = " + a_tensor + ", B' = " + b_tensor + ", C' = " + c_tensor + "\n";
  s += "  " + dim("M", m) + "\n  " + dim("N", n) + "\n  " + dim("K", k) + "\n";
  s += "for " + (outer_spatial.empty() ? std::string("(no outer spatial loops)") : joined(outer_spatial, ", ")) + ":\n";
  s += "  for mt < " + std::to_string(m.tiles()) + ", nt < " + std::to_string(n.tiles()) + ":\n";
  s += "    acc[" + std::to_string(m.tile) + "x" + std::to_string(n.tile) + "] = 0\n";
  s += "    for " + (outer_reduction.empty() ? std::string("") : joined(outer_reduction, ", ") + ", ") + "kt < " +
       std::to_string(k.tiles()) + ":\n";
  s += "      stage A'[mt, kt] and B'[kt, nt] (zero outside bounds and padding)\n";
  s += "      acc = " + intrinsic.name + "(A', B', acc)\n";
  s += "    " + c_tensor + "[mt, nt] = acc" + (op.epilogue.empty() ? "" : " then epilogue") + "  (guarded)\n";
  s += "schedule: " + std::to_string(schedule.rows) + " row tile" + (schedule.rows == 1 ? "" : "s") + " x " +
       std::to_string(schedule.cols) + " column tile" + (schedule.cols == 1 ? "" : "s") + " per register block, " +
       (schedule.parallel ? "parallel" : "serial") + " outer loop (CPU)\n";
  return s;
}

TensorizeStep TensorizePlan::step() const {
  TensorizeStep s;
  s.intrinsic = intrinsic.name;
  s.mapping = mapping_number;
  s.loops.emplace();
  for (const auto& la : mapping.loops) (*s.loops)[la.intrinsic_loop] = la.op_loops;
  s.schedule = schedule;
  return s;
}

TensorizePlan tensorize_plan(const Op& op, const Target& target, const TensorizeStep& step) {
  TensorizePlan p = plan_tensorize(op, target.intrinsic(step.intrinsic), step.mapping);
  if (step.loops && p.step().loops != step.loops)
    throw Error("tensorize step: mapping #" + std::to_string(p.mapping_number) + " is now " + p.mapping.str() +
                ", the step recorded " + nlohmann::json(*step.loops).dump());
  if (step.schedule) p.schedule = *step.schedule;
  return p;
}

}  // namespace attune
