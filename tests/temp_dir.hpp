// A private directory under $TMPDIR (/tmp) for one test (or, held in a static, one test process), removed
// with everything in it afterwards.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace attune::test {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "attune-test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory " + tmpl);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;  // a destructor that runs at exit must not throw
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace attune::test
