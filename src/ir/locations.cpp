// Where attune's run-time files are (ir/locations.hpp). The installed layout comes from
// cmake/install.cmake as compile definitions of this file alone; the module this code is
// linked into is found with dladdr on one of its own functions, so the same code finds an
// installed tree from libattune.so in a program's process and from the attune executable.
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "ir/error.hpp"
#include "ir/locations.hpp"

#ifndef ATTUNE_SOURCE_DIR
#define ATTUNE_SOURCE_DIR "."
#endif
#if !defined(ATTUNE_INSTALL_BINDIR) || !defined(ATTUNE_INSTALL_LIBDIR) || !defined(ATTUNE_INSTALL_WORKER_DIR) || \
    !defined(ATTUNE_INSTALL_TARGETS_DIR)
#error "the installed layout comes from cmake/install.cmake (compile definitions of this file)"
#endif

namespace attune {

namespace {

namespace fs = std::filesystem;

const char* env_value(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

std::optional<fs::path> this_prefix() {
  if (auto p = install_prefix_of(this_module_path())) return fs::path(*p);
  return std::nullopt;
}

bool is_executable(const std::string& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0; }

}  // namespace

std::string this_module_path() {
  // The link map names the shared object a function lives in; the main program's entry has an
  // empty name (dladdr would give argv[0], which may be relative or a bare name from PATH).
  Dl_info info{};
  link_map* map = nullptr;
  std::string path;
  if (::dladdr1(reinterpret_cast<void*>(&this_module_path), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) !=
          0 &&
      map && map->l_name && *map->l_name)
    path = map->l_name;
  std::error_code ec;
  if (path.empty()) path = fs::read_symlink("/proc/self/exe", ec).string();
  const fs::path canonical = fs::weakly_canonical(path, ec);
  return ec ? path : canonical.string();
}

std::optional<std::string> install_prefix_of(const std::string& module_path) {
  const fs::path dir = fs::path(module_path).parent_path();
  for (const char* installed_in : {ATTUNE_INSTALL_LIBDIR, ATTUNE_INSTALL_BINDIR}) {
    // PREFIX/<installed_in>: strip its components, last first, from the module's directory.
    const fs::path rel(installed_in);
    if (rel.empty() || rel.is_absolute()) continue;
    const std::vector<fs::path> parts(rel.begin(), rel.end());
    fs::path prefix = dir;
    bool matches = true;
    for (auto it = parts.rbegin(); it != parts.rend() && matches; ++it) {
      matches = prefix.has_relative_path() && prefix.filename() == *it;
      prefix = prefix.parent_path();
    }
    if (matches) return prefix.string();
  }
  return std::nullopt;
}

std::vector<std::string> target_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = env_value("ATTUNE_TARGETS_DIR")) dirs.emplace_back(env);
  if (const auto prefix = this_prefix()) dirs.push_back((*prefix / ATTUNE_INSTALL_TARGETS_DIR).string());
  dirs.push_back(std::string(ATTUNE_SOURCE_DIR) + "/targets");
  return dirs;
}

std::string find_worker() {
  if (const char* env = env_value("ATTUNE_WORKER")) {
    if (is_executable(env)) return env;
    throw Error(std::string("attune-worker not found at '") + env + "' (ATTUNE_WORKER)");
  }
  std::vector<std::string> tried;
  if (const auto prefix = this_prefix())
    tried.push_back((*prefix / ATTUNE_INSTALL_WORKER_DIR / "attune-worker").string());
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) tried.push_back((self.parent_path() / "attune-worker").string());
#ifdef ATTUNE_WORKER_PATH
  tried.emplace_back(ATTUNE_WORKER_PATH);
#endif
  std::string list;
  for (const auto& p : tried) {
    if (is_executable(p)) return p;
    list += (list.empty() ? "" : ", ") + p;
  }
  throw Error("attune-worker not found (tried " + (list.empty() ? std::string("nothing") : list) +
              "); set ATTUNE_WORKER to its path");
}

}  // namespace attune
