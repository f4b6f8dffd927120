// report/provenance.cpp — this build and this machine (provenance.hpp).
#include "report/provenance.hpp"

#include <fstream>
#include <thread>

namespace attune::report {

// CMake defines ATTUNE_COMMIT for this file alone (CMakeLists.txt), so that a new commit
// recompiles one file, not the tree.
#ifndef ATTUNE_COMMIT
#define ATTUNE_COMMIT "unknown"
#endif

BuildInfo this_build() {
  BuildInfo b;
  b.version = "0.1.0";
  b.commit = ATTUNE_COMMIT;
#if defined(__clang__)
  b.compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
  b.compiler = "gcc " __VERSION__;
#else
  b.compiler = "unknown compiler";
#endif
  return b;
}

std::string this_machine() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos) model = line.substr(line.find_first_not_of(" \t", colon + 1));
    break;
  }
  return model + ", " + std::to_string(std::thread::hardware_concurrency()) + " logical CPUs";
}

std::string shell_command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i) s += ' ';
    if (!arg.empty() && arg.find_first_of(" \t\n'\"\\$`;&|<>()*?") == std::string::npos) {
      s += arg;
      continue;
    }
    s += '\'';
    for (char c : arg) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
    s += '\'';
  }
  return s;
}

}  // namespace attune::report
