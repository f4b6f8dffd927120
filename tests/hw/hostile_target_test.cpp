// hostile_target_test.cpp — target files and folders that would crash the loader: unbounded
// JSON nesting, and a targets directory the user cannot read. Both are attune::Error.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hw/target.hpp"
#include "ir/error.hpp"
#include "unprivileged.hpp"

namespace attune {
namespace {

namespace fs = std::filesystem;

TEST(HostileTarget, DeepNestingIsAnError) {
  const std::string text = R"({"name": "t", "kind": "cpu", "cores": )" + std::string(100000, '[');
  try {
    parse_target(text, "targets/x.json");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "targets/x.json: JSON nested deeper than 64 levels (at byte 101)");
  }
}

TEST(HostileTarget, UnreadableTargetsDirectoryIsNamed) {
  std::string tmpl = (fs::temp_directory_path() / "attune-targets-XXXXXX").string();
  ASSERT_TRUE(::mkdtemp(tmpl.data()));
  const fs::path dir = tmpl;
  const fs::path targets = dir / "targets";
  fs::create_directories(targets);
  std::ofstream(targets / "mine.json") << "{}";
  const std::string got = testing::as_unprivileged_owner({dir.string(), targets.string()}, [&] {
    fs::permissions(targets, fs::perms::none);
    ::setenv("ATTUNE_TARGETS_DIR", targets.c_str(), 1);
    std::string out;
    try {
      load_target("mine");
      out = "(loaded)";
    } catch (const Error& e) {
      out = e.what();
    } catch (const std::exception& e) {
      out = std::string("not an attune::Error: ") + e.what();
    }
    // list_targets() skips what it cannot read (the shipped targets are still listed).
    try {
      out += "\n" + std::to_string(!list_targets().empty());
    } catch (const std::exception& e) {
      out += std::string("\nlist_targets threw: ") + e.what();
    }
    ::unsetenv("ATTUNE_TARGETS_DIR");
    fs::permissions(targets, fs::perms::owner_all);
    return out;
  });
  EXPECT_EQ(got, "target 'mine': cannot look in " + targets.string() + ": Permission denied\n1");
  std::error_code ec;
  fs::permissions(targets, fs::perms::owner_all, ec);
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace attune
