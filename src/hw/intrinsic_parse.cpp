// Validating one intrinsic: its compute abstraction (a tiny Op in the spec language) and its
// memory abstraction (one entry per operand).
//
// The compute abstraction must be a plain contraction whose every index is a single loop
// variable (C[i,j] += A[i,k] * B[k,j]): the mapping stage compares op accesses against these
// dimensions one to one, so an intrinsic with `i+1` or a repeated loop in one operand has no
// meaning there. Extents come from the tensor shapes, as in any spec.
#include <algorithm>
#include <set>

#include "hw/parse_parts.hpp"
#include "ir/error.hpp"

namespace attune::hw {

namespace {

const std::vector<std::string>& scope_names() {
  static const std::vector<std::string> v{"global",     "shared",     "register",  "fragment",
                                          "acc_buffer", "inp_buffer", "wgt_buffer"};
  return v;
}

const std::vector<std::string>& layout_names() {
  static const std::vector<std::string> v{"row_major", "col_major", "broadcast", "vnni", "blocked"};
  return v;
}

MemScope scope_of(const std::string& s) {
  const auto& v = scope_names();
  return static_cast<MemScope>(std::find(v.begin(), v.end(), s) - v.begin());
}

Layout layout_of(const std::string& s) {
  const auto& v = layout_names();
  return static_cast<Layout>(std::find(v.begin(), v.end(), s) - v.begin());
}

// Scopes that exist on each kind of machine.
bool scope_exists_on(MemScope s, TargetKind k) {
  switch (s) {
    case MemScope::global: return true;
    case MemScope::reg: return k != TargetKind::vta;
    case MemScope::shared:
    case MemScope::fragment: return k == TargetKind::cuda;
    case MemScope::acc_buffer:
    case MemScope::inp_buffer:
    case MemScope::wgt_buffer: return k == TargetKind::vta;
  }
  return false;
}

MemScope read_scope(const JsonNode& n, TargetKind kind) {
  MemScope s = scope_of(n.choice("scope", scope_names()));
  if (!scope_exists_on(s, kind))
    n.fail("scope '" + std::string(mem_scope_name(s)) + "' is not available on a " +
           std::string(target_kind_name(kind)) + " target");
  return s;
}

// Replaces ${NAME} by the parameter's value; unknown names are an error in the file.
std::string substitute_params(const JsonNode& node, std::string text,
                              const std::map<std::string, std::int64_t>& params) {
  std::size_t pos = 0;
  while ((pos = text.find("${", pos)) != std::string::npos) {
    std::size_t end = text.find('}', pos);
    if (end == std::string::npos) node.fail("unterminated '${' in compute text");
    std::string name = text.substr(pos + 2, end - pos - 2);
    auto it = params.find(name);
    if (it == params.end()) node.fail("unknown parameter '${" + name + "}'");
    std::string value = std::to_string(it->second);
    text.replace(pos, end - pos + 1, value);
    pos += value.size();
  }
  return text;
}

std::string compute_text(const JsonNode& n) {
  if (n.raw().is_string()) return n.str();
  if (!n.raw().is_array()) n.fail("expected a spec string or an array of lines, got " + n.brief());
  std::string text;
  for (std::size_t i = 0; i < n.size(); ++i) {
    if (!n.at(i).raw().is_string()) n.at(i).fail("expected a string, got " + n.at(i).brief());
    text += n.at(i).raw().get<std::string>() + "\n";
  }
  return text;
}

void check_access_is_plain(const JsonNode& n, const Access& a) {
  std::set<std::string> seen;
  for (const auto& e : a.index) {
    auto v = e.as_single_var();
    if (!v) n.fail("index '" + e.str() + "' of " + a.tensor + " is not a single loop variable");
    if (!seen.insert(*v).second) n.fail("loop '" + *v + "' indexes " + a.tensor + " twice");
  }
}

Op parse_compute(const JsonNode& n, const std::map<std::string, std::int64_t>& params) {
  std::string text = substitute_params(n, compute_text(n), params);
  Op op;
  try {
    op = parse_spec(text);
  } catch (const Error& e) {
    n.fail(std::string("line ") + e.what());
  }
  if (!op.epilogue.empty()) n.fail("an intrinsic cannot have an epilogue");
  if (op.spatial_vars().empty()) n.fail("needs at least one spatial loop");
  check_access_is_plain(n, op.output);
  for (const auto& in : op.inputs) check_access_is_plain(n, in);
  return op;
}

OperandMemory parse_operand_memory(const JsonNode& n, const std::string& tensor, const Op& compute, TargetKind kind) {
  n.only_keys({"scope", "staging", "layout", "alignment", "stride"});
  OperandMemory m;
  m.tensor = tensor;
  m.scope = read_scope(n.get("scope"), kind);
  if (auto st = n.find("staging")) {
    for (std::size_t i = 0; i < st->size(); ++i) m.staging.push_back(read_scope(st->at(i), kind));
  }
  m.layout = layout_of(n.get("layout").choice("layout", layout_names()));
  if (auto al = n.find("alignment")) {
    m.alignment = al->integer(1);
    if ((m.alignment & (m.alignment - 1)) != 0)
      al->fail("alignment " + std::to_string(m.alignment) + " is not a power of two");
  } else {
    m.alignment = static_cast<std::int64_t>(dtype_size(compute.tensor(tensor).dtype));
  }
  if (auto sr = n.find("stride")) {
    sr->only_keys({"inner_unit", "leading_multiple"});
    if (auto u = sr->find("inner_unit")) m.unit_stride_inner = u->boolean();
    if (auto l = sr->find("leading_multiple")) m.leading_dim_multiple = l->integer(1);
  }
  return m;
}

std::vector<OperandMemory> parse_memory(const JsonNode& n, const Op& compute, TargetKind kind) {
  n.require_object();
  for (const auto& k : n.keys()) {
    if (k == "comment") continue;
    if (compute.tensor_index(k) < 0) n.get(k).fail("no tensor '" + k + "' in the compute abstraction");
  }
  std::vector<OperandMemory> out;
  for (const auto& t : compute.tensors) {
    if (!n.has(t.name)) n.fail("missing entry for tensor '" + t.name + "'");
    out.push_back(parse_operand_memory(n.get(t.name), t.name, compute, kind));
  }
  return out;
}

}  // namespace

Intrinsic parse_intrinsic(const JsonNode& node, const TargetContext& ctx) {
  node.only_keys({"name", "compute", "memory", "emit", "config"});
  Intrinsic in;
  in.name = node.get("name").str();
  if (auto c = node.find("comment")) in.comment = c->str();
  if (auto cfg = node.find("config")) in.params = resolve_config(*cfg, ctx, in.config_path);
  in.compute = parse_compute(node.get("compute"), in.params);
  in.compute.name = in.name;
  in.memory = parse_memory(node.get("memory"), in.compute, ctx.kind);
  in.emit = node.get("emit").raw();
  in.emit_kind = check_emit(node.get("emit"), in, ctx);
  return in;
}

}  // namespace attune::hw
