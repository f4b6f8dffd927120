// Finding target files: a path is read as is; a bare name is looked up in $ATTUNE_TARGETS_DIR
// and then in the source tree's targets/ (ATTUNE_SOURCE_DIR is a compile definition), so a
// user can add targets without touching the tree and the shipped ones are always found.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "attune/error.hpp"
#include "attune/target.hpp"
#include "hw/json_node.hpp"

#ifndef ATTUNE_SOURCE_DIR
#define ATTUNE_SOURCE_DIR "."
#endif

namespace attune {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> target_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("ATTUNE_TARGETS_DIR"); env && *env) dirs.emplace_back(env);
  dirs.emplace_back(std::string(ATTUNE_SOURCE_DIR) + "/targets");
  return dirs;
}

std::string alias(const std::string& name) {
  if (name == "cpu" || name == "host") return host_cpu_target();
  static const std::map<std::string, std::string> aliases{{"cuda", "nvidia-h200"}, {"gpu", "nvidia-h200"}};
  auto it = aliases.find(name);
  return it == aliases.end() ? name : it->second;
}

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos ||
         (s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0);
}

}  // namespace

std::string host_cpu_target() {
  // The vendor libraries pick their kernels by the same CPUID bits: where AVX-512 is present,
  // kernels tuned for AVX2 would leave half of each FMA unit idle next to theirs.
  __builtin_cpu_init();
  const bool v4 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                  __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
  return v4 ? "x86-avx512" : "x86-avx2";
}

Target load_target(const std::string& path_or_name) {
  if (path_or_name.empty()) throw Error("target: empty name");
  if (looks_like_path(path_or_name))
    return parse_target(hw::read_text_file(path_or_name), path_or_name);
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
