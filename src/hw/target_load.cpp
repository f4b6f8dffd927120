// Finding target files: a path is read as is; a bare name is looked up in target_dirs()
// ($ATTUNE_TARGETS_DIR, then an installed tree's share/attune/targets, then the source tree's
// targets/; locations.hpp), so a user can add targets without touching the tree and the shipped
// ones are always found.
#include <algorithm>
#include <filesystem>
#include <map>

#include "hw/json_node.hpp"
#include "hw/target.hpp"
#include "ir/error.hpp"
#include "ir/locations.hpp"

namespace attune {
namespace {

namespace fs = std::filesystem;

std::string alias(const std::string& name) {
  if (name == "cpu" || name == "host") return host_cpu_target();
  static const std::map<std::string, std::string> aliases{{"cuda", "nvidia-h200"}, {"gpu", "nvidia-h200"}};
  auto it = aliases.find(name);
  return it == aliases.end() ? name : it->second;
}

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || (s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0);
}

}  // namespace

namespace {

bool host_has_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
}

}  // namespace

std::string host_cpu_target() {
  // The vendor libraries pick their kernels by the same CPUID bits: where AVX-512 is present,
  // kernels tuned for AVX2 would leave half of each FMA unit idle next to theirs.
  return host_has_avx512() ? "x86-avx512" : "x86-avx2";
}

VectorRegisters cpu_vector_registers(const Target& t) {
  VectorRegisters v;
  v.lanes = cpu_vector_bits(t) / 32;
  v.count = t.vector_registers;
  return v;
}

std::string host_cannot_run(const Target& t) {
  if (t.kind != TargetKind::cpu) return "";
  if (cpu_vector_bits(t) > 256 && !host_has_avx512())
    return "target " + t.name +
           " needs AVX-512 F/VL/BW/DQ, which this CPU lacks (use x86-avx2, or 'cpu' for this CPU's own)";
  return "";
}

Target load_target(const std::string& path_or_name) {
  if (path_or_name.empty()) throw Error("target: empty name");
  if (looks_like_path(path_or_name)) return parse_target(hw::read_text_file(path_or_name), path_or_name);
  std::string name = alias(path_or_name);
  for (const auto& dir : target_dirs()) {
    // The error_code forms: a directory without search permission is a user's problem to be
    // reported, not an exception from the filesystem library.
    std::string p = dir + "/" + name + ".json";
    std::error_code ec;
    const bool found = fs::is_regular_file(p, ec);
    if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
      throw Error("target '" + path_or_name + "': cannot look in " + dir + ": " + ec.message());
    if (found) return parse_target(hw::read_text_file(p), p);
  }
  std::string known;
  for (const auto& n : list_targets()) known += (known.empty() ? "" : ", ") + n;
  throw Error("unknown target '" + path_or_name + "' (known: " + (known.empty() ? "none" : known) +
              "; also cpu, cuda)");
}

std::vector<std::string> list_targets() {
  std::vector<std::string> out;
  for (const auto& dir : target_dirs()) {
    // Unreadable directories list nothing (load_target reports them by name).
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code fec;
      if (it->is_regular_file(fec) && it->path().extension() == ".json") out.push_back(it->path().stem().string());
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace attune
