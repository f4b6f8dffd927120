// libgen_out_dir_test.cpp — `libgen --out` never destroys a file it did not write: a non-empty
// directory without libgen's marker, the filesystem root, system directories and the home
// directory are refused; an earlier output is replaced only with force, and only its files.
#include <gtest/gtest.h>

#include <stdlib.h>

#include "ir/error.hpp"
#include "libgen/libgen.hpp"
#include "libgen_test_util.hpp"

namespace attune {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;
using testing::slurp;
using testing::spit;

LibgenOptions options(const ScratchDir& d, const std::string& out, bool force = false) {
  LibgenOptions o;
  o.db_path = d.file("t.db");
  o.out_dir = out;
  o.name = "mylib";
  o.force = force;
  return o;
}

std::string error_of(const LibgenOptions& o) {
  try {
    generate_library(o);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

void add_task(const ScratchDir& d) {
  testing::add_verified_task(d.file("t.db"), "g", instantiate_template("gemm", {{"M", "4"}, {"N", "4"}, {"K", "4"}}));
}

TEST(LibgenOutDir, NonEmptyDirectoryWithoutMarkerIsRefusedAndUntouched) {
  ScratchDir d;
  add_task(d);
  const std::string out = d.file("project");
  spit(out + "/CMakeLists.txt", "my project");
  spit(out + "/src/kernels/keep.c", "int keep;");
  EXPECT_EQ(error_of(options(d, out)), out +
                                           ": the output directory is not empty and attune libgen did not write it "
                                           "(no .attune-libgen); choose a new or empty directory");
  EXPECT_EQ(error_of(options(d, out, /*force=*/true)), error_of(options(d, out)));
  EXPECT_EQ(slurp(out + "/CMakeLists.txt"), "my project");
  EXPECT_EQ(slurp(out + "/src/kernels/keep.c"), "int keep;");
}

TEST(LibgenOutDir, EmptyOrNewDirectoriesAreWritten) {
  ScratchDir d;
  add_task(d);
  fs::create_directories(d.file("empty"));
  for (const std::string& out : {d.file("empty"), d.file("new/deeper")}) {
    const LibgenResult r = generate_library(options(d, out));
    EXPECT_TRUE(fs::exists(out + "/CMakeLists.txt"));
    // The marker lists exactly the files written.
    std::string listed;
    std::istringstream marker(slurp(out + "/.attune-libgen"));
    for (std::string line; std::getline(marker, line);)
      if (!line.empty() && line[0] != '#') listed += line + "\n";
    std::string want;
    for (const auto& f : r.files) want += f + "\n";
    EXPECT_EQ(listed, want);
  }
}

TEST(LibgenOutDir, AnEarlierOutputIsReplacedOnlyWithForce) {
  ScratchDir d;
  add_task(d);
  const std::string out = d.file("out");
  generate_library(options(d, out));
  spit(out + "/CMakeLists.txt", "edited");
  EXPECT_EQ(error_of(options(d, out)),
            out + ": the output directory holds an earlier attune libgen output; pass --force to replace it");
  EXPECT_EQ(slurp(out + "/CMakeLists.txt"), "edited");
  generate_library(options(d, out, /*force=*/true));
  EXPECT_NE(slurp(out + "/CMakeLists.txt"), "edited");
}

TEST(LibgenOutDir, AFileTheEarlierOutputDidNotListIsNeverReplaced) {
  ScratchDir d;
  add_task(d);
  const std::string out = d.file("out");
  generate_library(options(d, out));
  // The user deletes README.md from the marker's list (it is theirs now) and edits it.
  std::string marker = slurp(out + "/.attune-libgen");
  marker.erase(marker.find("README.md\n"), 10);
  spit(out + "/.attune-libgen", marker);
  spit(out + "/README.md", "my notes");
  EXPECT_EQ(error_of(options(d, out, true)),
            out + "/README.md: exists and was not written by attune libgen; not replacing it");
  EXPECT_EQ(slurp(out + "/README.md"), "my notes");
  // A marker line leading out of the directory is ignored: nothing outside is removed.
  spit(d.file("outside.txt"), "outside");
  spit(out + "/.attune-libgen", marker + "../outside.txt\n/etc/passwd\n");
  fs::remove(out + "/README.md");
  generate_library(options(d, out, true));
  EXPECT_EQ(slurp(d.file("outside.txt")), "outside");
}

TEST(LibgenOutDir, SystemDirectoriesAreRefused) {
  ScratchDir d;
  add_task(d);
  EXPECT_EQ(error_of(options(d, "/")),
            "/: refusing to write a library into the filesystem root; choose a new directory for it");
  EXPECT_EQ(error_of(options(d, "/usr", true)),
            "/usr: refusing to write a library into a top-level directory (/usr); choose a new directory for it");
  EXPECT_EQ(error_of(options(d, "/etc/mylib")),
            "/etc/mylib: refusing to write a library into the system directory /etc; choose a new directory for it");
  EXPECT_EQ(error_of(options(d, "/usr/lib/../lib/mylib")),
            "/usr/lib/../lib/mylib: refusing to write a library into the system directory /usr; choose a new directory "
            "for it");
  EXPECT_FALSE(fs::exists("/etc/mylib"));
  // The home directory itself, even when empty.
  const std::string home = d.file("home");
  fs::create_directories(home);
  const char* old = std::getenv("HOME");
  const std::string saved = old ? old : "";
  ::setenv("HOME", home.c_str(), 1);
  EXPECT_EQ(error_of(options(d, home)),
            home + ": refusing to write a library into the home directory itself; choose a new directory for it");
  EXPECT_NO_THROW(generate_library(options(d, home + "/mylib")));
  if (old)
    ::setenv("HOME", saved.c_str(), 1);
  else
    ::unsetenv("HOME");
}

TEST(LibgenOutDir, SymbolicLinksAreNotWrittenThrough) {
  ScratchDir d;
  add_task(d);
  const std::string out = d.file("out");
  generate_library(options(d, out));
  fs::create_directories(d.file("elsewhere"));
  fs::remove_all(out + "/src");
  fs::create_directory_symlink(d.file("elsewhere"), out + "/src");
  EXPECT_EQ(error_of(options(d, out, true)),
            out + "/src: is a symbolic link; attune libgen does not write through one");
  EXPECT_TRUE(fs::is_empty(d.file("elsewhere")));
}

}  // namespace
}  // namespace attune
