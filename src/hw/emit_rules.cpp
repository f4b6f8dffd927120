// The `emit` object: how codegen issues an intrinsic. Each emit kind belongs to one backend
// (a cpu target cannot carry a `wmma` intrinsic) and has its own fields, checked against the
// compute abstraction so a file cannot say "16 lanes" for an 8-wide loop. Adding an intrinsic
// whose emit kind is listed here needs only a file; a new emit kind needs a backend too.
#include <algorithm>

#include "hw/parse_parts.hpp"
#include "ir/error.hpp"

namespace attune::hw {

namespace {

struct EmitRule {
  std::string kind;
  TargetKind target;
  std::vector<std::string_view> fields;  // besides "kind" and "comment"
};

const std::vector<EmitRule>& emit_rules() {
  static const std::vector<EmitRule> rules{
      {"avx2_fma_bcast", TargetKind::cpu, {"lanes", "isa", "instruction", "header"}},
      {"avx512_fma_bcast", TargetKind::cpu, {"lanes", "isa", "instruction", "header"}},
      {"avx512_vnni", TargetKind::cpu, {"lanes", "depth", "isa", "instruction", "header"}},
      {"mma_sync", TargetKind::cuda, {"ptx", "shape", "sm", "fragments"}},
      {"wmma", TargetKind::cuda, {"shape", "sm", "namespace", "header", "fragments"}},
      {"vta_gemm", TargetKind::vta, {"instruction", "config"}},
  };
  return rules;
}

// The intrinsic's loop extents in var order (spatial then reduction): [16, 8, 16] for m16n8k16.
std::vector<std::int64_t> loop_extents(const Op& op) {
  std::vector<std::int64_t> out;
  for (const auto& v : op.vars) out.push_back(v.extent);
  return out;
}

std::string dims_str(const std::vector<std::int64_t>& xs) {
  std::string s = "[";
  for (std::size_t i = 0; i < xs.size(); ++i) s += (i ? "," : "") + std::to_string(xs[i]);
  return s + "]";
}

// SIMD lanes run along the output's innermost loop and hold one accumulator element each.
void check_lanes(const JsonNode& n, const Intrinsic& intr, const TargetContext& ctx) {
  std::int64_t lanes = n.integer(1);
  const Access& out = intr.compute.output;
  std::string inner = *out.index.back().as_single_var();
  std::int64_t ext = intr.compute.var(inner).extent;
  if (lanes != ext)
    n.fail(std::to_string(lanes) + " lanes do not match the extent " + std::to_string(ext) +
           " of the output's innermost loop '" + inner + "'");
  DType acc = intr.compute.accum_dtype();
  std::int64_t bits = lanes * static_cast<std::int64_t>(dtype_size(acc)) * 8;
  if (ctx.vector_bits > 0 && bits > ctx.vector_bits)
    n.fail(std::to_string(lanes) + " lanes of " + std::string(dtype_name(acc)) + " exceed the target's " +
           std::to_string(ctx.vector_bits) + "-bit vectors");
}

void check_shape(const JsonNode& n, const Intrinsic& intr) {
  std::vector<std::int64_t> shape;
  for (std::size_t i = 0; i < n.size(); ++i) shape.push_back(n.at(i).integer(1));
  std::vector<std::int64_t> want = loop_extents(intr.compute);
  if (shape != want) n.fail(dims_str(shape) + " does not match the compute abstraction's extents " + dims_str(want));
}

}  // namespace

std::string check_emit(const JsonNode& node, const Intrinsic& intr, const TargetContext& ctx) {
  node.require_object();
  JsonNode kn = node.get("kind");
  std::vector<std::string> names;
  for (const auto& r : emit_rules())
    if (r.target == ctx.kind) names.push_back(r.kind);
  if (!kn.raw().is_string()) kn.fail("expected a string, got " + kn.brief());
  std::string kind = kn.raw().get<std::string>();
  if (std::find(names.begin(), names.end(), kind) == names.end()) {
    std::string expected;
    for (const auto& n : names) expected += (expected.empty() ? "" : "|") + n;
    kn.fail("unknown emit kind '" + kind + "' for a " + std::string(target_kind_name(ctx.kind)) + " target (expected " +
            expected + ")");
  }
  const EmitRule& rule =
      *std::find_if(emit_rules().begin(), emit_rules().end(), [&](const EmitRule& r) { return r.kind == kind; });

  for (const auto& k : node.keys()) {
    if (k == "kind" || k == "comment") continue;
    if (std::find(rule.fields.begin(), rule.fields.end(), k) == rule.fields.end()) {
      std::string allowed;
      for (auto f : rule.fields) allowed += (allowed.empty() ? "" : ", ") + std::string(f);
      node.get(k).fail("unknown field for emit kind '" + kind + "' (expected one of: " + allowed + ")");
    }
  }
  if (ctx.kind == TargetKind::cpu) check_lanes(node.get("lanes"), intr, ctx);
  if (ctx.kind == TargetKind::cuda) check_shape(node.get("shape"), intr);
  if (kind == "mma_sync") {
    JsonNode ptx = node.get("ptx");
    if (ptx.str().rfind("mma.sync.", 0) != 0) ptx.fail("expected an mma.sync PTX instruction, got " + ptx.brief());
  }
  if (kind == "avx512_vnni") {
    // The dot depth is the reduction extent: vpdpbusd sums 4 byte products per lane.
    JsonNode d = node.get("depth");
    auto reds = intr.compute.reduction_vars();
    std::int64_t depth = d.integer(1);
    if (reds.size() != 1 || intr.compute.var(reds[0]).extent != depth)
      d.fail("depth " + std::to_string(depth) + " does not match the compute abstraction's reduction extent");
  }
  return kind;
}

}  // namespace attune::hw
