// Finding and running external compilers from the codegen tests (compile-only checks).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace attune::test {

// The first `name` on PATH, then in `fallback_dir`; "" when neither has it.
inline std::string find_tool(const std::string& name, const std::string& fallback_dir = "") {
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    for (std::size_t b = 0; b <= p.size();) {
      std::size_t e = p.find(':', b);
      if (e == std::string::npos) e = p.size();
      const std::filesystem::path cand = std::filesystem::path(p.substr(b, e - b)) / name;
      if (e > b && ::access(cand.c_str(), X_OK) == 0) return cand.string();
      b = e + 1;
    }
  }
  if (!fallback_dir.empty()) {
    const std::filesystem::path cand = std::filesystem::path(fallback_dir) / name;
    if (::access(cand.c_str(), X_OK) == 0) return cand.string();
  }
  return "";
}

// Runs `cmd` through the shell with stderr folded into the returned text; `rc` gets the status.
inline std::string run_command(const std::string& cmd, int& rc) {
  std::string out;
  FILE* f = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!f) {
    rc = -1;
    return "popen failed";
  }
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, f)) out.append(buf, n);
  rc = ::pclose(f);
  return out;
}

inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / ("attune_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

inline void write_text(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

}  // namespace attune::test
