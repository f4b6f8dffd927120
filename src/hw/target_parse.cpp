// Validating a target file's top level: the machine description and its list of intrinsics.
#include <filesystem>
#include <set>
#include <thread>

#include "hw/parse_parts.hpp"
#include "ir/error.hpp"

namespace attune::hw {
namespace {

TargetKind kind_of(const std::string& s) {
  if (s == "cuda") return TargetKind::cuda;
  if (s == "vta") return TargetKind::vta;
  return TargetKind::cpu;
}

// "auto" means this machine: the host target describes whatever runs attune.
int read_cores(const JsonNode& n) {
  if (n.raw().is_string()) {
    if (n.raw().get<std::string>() != "auto") n.fail("expected a positive integer or \"auto\", got " + n.brief());
    unsigned hc = std::thread::hardware_concurrency();
    return hc == 0 ? 1 : static_cast<int>(hc);
  }
  std::int64_t c = n.integer(1);
  if (c > 1 << 20) n.fail("implausible core count " + std::to_string(c));
  return static_cast<int>(c);
}

CacheSizes read_caches(const JsonNode& n) {
  n.only_keys({"L1", "L2", "L3"});
  CacheSizes c;
  if (auto v = n.find("L1")) c.l1 = v->integer(0);
  if (auto v = n.find("L2")) c.l2 = v->integer(0);
  if (auto v = n.find("L3")) c.l3 = v->integer(0);
  return c;
}

}  // namespace
}  // namespace attune::hw

namespace attune {

Target parse_target(std::string_view json_text, const std::string& origin) {
  using hw::JsonNode;
  nlohmann::json doc = hw::parse_json_text(json_text, origin);
  JsonNode root(doc, origin);
  root.require_object();
  root.only_keys(
      {"name", "kind", "arch", "cores", "vector_bits", "vector_registers", "caches", "compiler", "intrinsics"});

  Target t;
  t.source = origin;
  t.name = root.get("name").str();
  t.kind = hw::kind_of(root.get("kind").choice("target kind", {"cpu", "cuda", "vta"}));
  if (auto c = root.find("comment")) t.comment = c->str();
  if (auto a = root.find("arch")) t.arch = a->str();
  t.cores = hw::read_cores(root.get("cores"));
  if (auto vb = root.find("vector_bits")) {
    t.vector_bits = static_cast<int>(vb->integer(0));
    if (t.vector_bits % 8 != 0) vb->fail("must be a multiple of 8, got " + vb->brief());
  }
  if (t.kind == TargetKind::cpu && t.vector_bits == 0)
    root.get("vector_bits").fail("a cpu target needs a positive vector width");
  if (auto vr = root.find("vector_registers")) t.vector_registers = static_cast<int>(vr->integer(1));
  if (t.kind == TargetKind::cpu && t.vector_registers == 0)
    root.get("vector_registers").fail("a cpu target needs its number of vector registers");
  if (auto c = root.find("caches")) t.caches = hw::read_caches(*c);

  // cpu and cuda kernels are compiled by attune; vta programs are instruction streams.
  std::optional<JsonNode> comp = root.find("compiler");
  if (!comp && t.kind != TargetKind::vta) root.get("compiler");  // raises "missing required field"
  if (comp) {
    comp->only_keys({"command", "flags"});
    t.compiler = comp->get("command").str();
    if (auto f = comp->find("flags"))
      for (std::size_t i = 0; i < f->size(); ++i) t.compiler_flags.push_back(f->at(i).str());
  }

  hw::TargetContext ctx;
  ctx.kind = t.kind;
  ctx.vector_bits = t.vector_bits;
  ctx.base_dir = std::filesystem::path(origin).parent_path().string();
  JsonNode list = root.get("intrinsics");
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) {
    Intrinsic in = hw::parse_intrinsic(list.at(i), ctx);
    if (!names.insert(in.name).second) list.at(i).get("name").fail("duplicate intrinsic '" + in.name + "'");
    t.intrinsics.push_back(std::move(in));
  }
  return t;
}

std::string_view target_kind_name(TargetKind k) {
  switch (k) {
    case TargetKind::cpu: return "cpu";
    case TargetKind::cuda: return "cuda";
    case TargetKind::vta: return "vta";
  }
  return "?";
}

std::string_view mem_scope_name(MemScope s) {
  switch (s) {
    case MemScope::global: return "global";
    case MemScope::shared: return "shared";
    case MemScope::reg: return "register";
    case MemScope::fragment: return "fragment";
    case MemScope::acc_buffer: return "acc_buffer";
    case MemScope::inp_buffer: return "inp_buffer";
    case MemScope::wgt_buffer: return "wgt_buffer";
  }
  return "?";
}

std::string_view layout_name(Layout l) {
  switch (l) {
    case Layout::row_major: return "row_major";
    case Layout::col_major: return "col_major";
    case Layout::broadcast: return "broadcast";
    case Layout::vnni: return "vnni";
    case Layout::blocked: return "blocked";
  }
  return "?";
}

const OperandMemory& Intrinsic::memory_of(std::string_view tensor) const {
  for (const auto& m : memory)
    if (m.tensor == tensor) return m;
  throw Error("intrinsic " + name + ": no operand '" + std::string(tensor) + "'");
}

std::string Intrinsic::shape_str() const {
  std::string s;
  for (const auto& v : compute.vars) s += (s.empty() ? "" : "x") + std::to_string(v.extent);
  return s;
}

bool Target::has_intrinsic(std::string_view n) const {
  for (const auto& i : intrinsics)
    if (i.name == n) return true;
  return false;
}

const Intrinsic& Target::intrinsic(std::string_view n) const {
  std::string known;
  for (const auto& i : intrinsics) {
    if (i.name == n) return i;
    known += (known.empty() ? "" : ", ") + i.name;
  }
  throw Error("target " + name + ": unknown intrinsic '" + std::string(n) +
              "' (known: " + (known.empty() ? "none" : known) + ")");
}

}  // namespace attune
