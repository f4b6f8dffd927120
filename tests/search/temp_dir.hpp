// A private directory under /tmp for one test, removed with everything in it afterwards.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace attune::test {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "attune-test") {
    std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace attune::test
