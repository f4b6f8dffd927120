// Where attune finds its run-time files (ir/locations.hpp): the environment first, then an
// installed tree around the module, then the build tree.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "ir/error.hpp"
#include "ir/locations.hpp"

namespace attune {
namespace {

namespace fs = std::filesystem;

// Sets an environment variable for one test and puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Locations, AnExecutableInPrefixBinHasThatPrefix) {
  EXPECT_EQ(install_prefix_of("/opt/attune/bin/attune"), "/opt/attune");
  EXPECT_EQ(install_prefix_of("/home/u/attune/build/attune"), std::nullopt);  // a build tree
  EXPECT_EQ(install_prefix_of("/attune"), std::nullopt);
}

// Statically linked into this test program, the module is the program itself.
TEST(Locations, ThisModuleOfAStaticallyLinkedProgramIsTheProgram) {
  EXPECT_EQ(this_module_path(), fs::canonical("/proc/self/exe").string());
}

TEST(Locations, TargetDirsPutTheEnvironmentFirstAndTheSourceTreeLast) {
  ScopedEnv env("ATTUNE_TARGETS_DIR", "/somewhere/targets");
  const auto dirs = target_dirs();
  ASSERT_GE(dirs.size(), 2u);
  EXPECT_EQ(dirs.front(), "/somewhere/targets");
  EXPECT_EQ(dirs.back(), std::string(ATTUNE_SOURCE_DIR) + "/targets");
}

TEST(Locations, TheWorkerNamedByTheEnvironmentMustBeExecutable) {
  {
    ScopedEnv env("ATTUNE_WORKER", "/bin/true");
    EXPECT_EQ(find_worker(), "/bin/true");
  }
  ScopedEnv env("ATTUNE_WORKER", "/no/such/attune-worker");
  try {
    find_worker();
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'/no/such/attune-worker' (ATTUNE_WORKER)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace attune
