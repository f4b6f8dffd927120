// Builder: compiling, caching, parallel batches, compiler errors and timeouts.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ir/error.hpp"
#include "kernels.hpp"

namespace attune::test {
namespace {

TEST(Builder, BuildsASharedObjectThatLoads) {
  ScratchDir dir;
  Builder b(build_options(dir));
  BuildResult r = b.build(c_artifact(kGood));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.cached);
  EXPECT_EQ(r.so_path.rfind(dir.path(), 0), 0u) << r.so_path;
  void* lib = dlopen(r.so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  EXPECT_NE(dlsym(lib, "attune_kernel"), nullptr);
  dlclose(lib);
}

TEST(Builder, SecondBuildIsACacheHit) {
  ScratchDir dir;
  Builder b(build_options(dir));
  BuildResult first = b.build(c_artifact(kGood));
  ASSERT_TRUE(first.ok) << first.error;
  BuildResult again = b.build(c_artifact(kGood));
  ASSERT_TRUE(again.ok);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.compile_s, 0);
  EXPECT_EQ(again.so_path, first.so_path);
  // A new Builder over the same directory (a later process) hits too.
  EXPECT_TRUE(Builder(build_options(dir)).build(c_artifact(kGood)).cached);
}

TEST(Builder, OnlyACompleteEntryIsAHit) {
  ScratchDir dir;
  Builder b(build_options(dir));
  Artifact a = c_artifact(kGood);
  const std::string base = dir.path() + "/" + b.cache_key(a);
  // What a killed build leaves: a temporary, no .so. And a .so whose stored source differs
  // (as after a hash collision) must not be served either.
  std::FILE* f = std::fopen((base + ".so.tmp.1.0").c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  EXPECT_FALSE(b.build(a).cached);
  f = std::fopen((base + ".c").c_str(), "w");
  std::fputs("int something_else;\n", f);
  std::fclose(f);
  BuildResult r = b.build(a);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.cached);
  EXPECT_TRUE(b.build(a).cached);
}

TEST(Builder, KeyDependsOnFlagsAndSource) {
  ScratchDir dir;
  Builder b(build_options(dir));
  Artifact a = c_artifact(kGood), flags = a, source = a;
  flags.flags = {"-O3"};
  source.source += "\n// another comment\n";
  EXPECT_NE(b.cache_key(a), b.cache_key(flags));
  EXPECT_NE(b.cache_key(a), b.cache_key(source));
  EXPECT_EQ(b.cache_key(a), b.cache_key(c_artifact(kGood)));
  EXPECT_EQ(b.cache_key(a).size(), 16u);
}

TEST(Builder, SyntaxErrorCarriesTheCompilersMessage) {
  ScratchDir dir;
  Builder b(build_options(dir));
  BuildResult r = b.build(c_artifact(kSyntaxError));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.so_path.empty());
  EXPECT_NE(r.error.find("error"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(".c:"), std::string::npos) << "names the source file: " << r.error;
  // Nothing half-built is left behind to be mistaken for a cache entry.
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().extension(), ".c") << e.path();
}

TEST(Builder, UnsupportedLanguageIsAFailedBuild) {
  ScratchDir dir;
  Builder b(build_options(dir));
  Artifact a = c_artifact(kGood);
  a.language = "cuda";
  BuildResult r = b.build(a);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("cuda"), std::string::npos) << r.error;
}

TEST(Builder, CompilerTimeoutIsAFailedBuild) {
  ScratchDir dir;
  BuildOptions o = build_options(dir);
  o.timeout_s = 0.5;
  // A "compiler" that answers the version probe but hangs when asked to build.
  const std::string wrapper = dir.path() + "/slowcc";
  {
    FILE* f = std::fopen(wrapper.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = --version ] && { echo slowcc 1.0; exit 0; }; done\nsleep 30\n", f);
    std::fclose(f);
    std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
  }
  o.compiler = wrapper;
  Builder b(o);
  EXPECT_NE(b.compiler_info().find("slowcc 1.0"), std::string::npos) << b.compiler_info();
  BuildResult r = b.build(c_artifact(kGood));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("timed out"), std::string::npos) << r.error;
}

TEST(Builder, MissingCompilerIsAUserError) {
  ScratchDir dir;
  BuildOptions o = build_options(dir);
  o.compiler = "attune-no-such-cc";
  EXPECT_THROW(Builder{o}, Error);
}

TEST(Builder, CompilerInfoNamesPathAndVersion) {
  std::string info = compiler_info();
  EXPECT_EQ(info.front(), '/') << info;
  EXPECT_NE(info.find(" | "), std::string::npos) << info;
}

TEST(Builder, ParallelBatchKeepsOrderAndSharesDuplicates) {
  ScratchDir dir;
  BuildOptions o = build_options(dir);
  o.jobs = 4;
  Builder b(o);
  std::vector<Artifact> batch;
  for (int i = 0; i < 6; ++i)  // distinct sources: a comment makes each its own cache entry
    batch.push_back(c_artifact(std::string(kGood) + "// variant " + std::to_string(i) + "\n"));
  batch.push_back(c_artifact(kSyntaxError));
  batch.push_back(batch[0]);  // a duplicate of the first
  auto results = b.build_batch(batch);
  ASSERT_EQ(results.size(), batch.size());
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(results[i].ok) << i << ": " << results[i].error;
    EXPECT_EQ(results[i].so_path, dir.path() + "/" + b.cache_key(batch[i]) + ".so");
  }
  EXPECT_FALSE(results[6].ok);
  EXPECT_TRUE(results[7].ok);
  EXPECT_EQ(results[7].so_path, results[0].so_path);

  auto again = b.build_batch(batch);
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(again[i].cached) << i;
}

TEST(Builder, CacheDirectoryFromEnvironment) {
  ScratchDir dir;
  ::setenv("ATTUNE_CACHE_DIR", (dir.path() + "/nested/cache").c_str(), 1);
  Builder b;
  ::unsetenv("ATTUNE_CACHE_DIR");
  EXPECT_EQ(b.cache_dir(), dir.path() + "/nested/cache");
  EXPECT_TRUE(std::filesystem::is_directory(b.cache_dir()));
}

// A pid no process has now: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

TEST(Builder, RemovesTheTemporariesOfDeadProcessesOnStart) {
  ScratchDir dir;
  const std::string dead = std::to_string(dead_pid()), alive = std::to_string(::getpid());
  const std::vector<std::string> stale = {"0123abcd.so.tmp." + dead + ".0", "0123abcd.c.tmp." + dead + ".7"};
  const std::vector<std::string> kept = {"4567cdef.so.tmp." + alive + ".1",  // a build in progress
                                         "4567cdef.so", "notes.tmp.x.1", "my.tmp.123"};
  for (const auto& name : stale) std::ofstream(dir.path() + "/" + name) << "partial";
  for (const auto& name : kept) std::ofstream(dir.path() + "/" + name) << "keep";
  Builder b(build_options(dir));
  for (const auto& name : stale) EXPECT_FALSE(std::filesystem::exists(dir.path() + "/" + name)) << name;
  for (const auto& name : kept) EXPECT_TRUE(std::filesystem::exists(dir.path() + "/" + name)) << name;
}

}  // namespace
}  // namespace attune::test
