// attune::Session (attune.hpp): tune records and resumes, best() reports the verified kernel,
// and every bad input is an attune::Error whose message says what was wrong. Nothing is timed.
#include <gtest/gtest.h>

#include <functional>

#include "attune/attune.hpp"
#include "temp_dir.hpp"

namespace attune {
namespace {

// The message of the Error `f` throws ("" when it throws none).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Session, TunesResumesAndReportsTheBestVerifiedKernel) {
  test::TempDir dir{"attune-api-test"};
  Session s("cpu", (dir.path / "t.db").string());
  const std::string spec = "gemm:M=8,N=16,K=8";
  EXPECT_FALSE(s.best(spec));

  const TuneSummary first = s.tune(spec, {.trials = 3, .threads = 1});
  EXPECT_EQ(first.trials, 3);
  EXPECT_EQ(first.trials_run, 3);
  EXPECT_GE(first.valid, 1);
  const auto best = s.best(spec);
  ASSERT_TRUE(best);
  EXPECT_GT(best->gflops, 0);
  EXPECT_DOUBLE_EQ(best->gflops, first.best_gflops);
  EXPECT_NE(best->trace.find("schema_version"), std::string::npos);

  // The budget counts earlier runs: the same number again measures nothing more.
  const TuneSummary again = s.tune(spec, {.trials = 3, .threads = 1});
  EXPECT_EQ(again.trials, 3);
  EXPECT_EQ(again.trials_run, 0);

  EXPECT_EQ(s.target().rfind("x86-avx", 0), 0u) << "cpu is this CPU's target, got " << s.target();
}

TEST(Session, BadInputIsAnErrorThatSaysWhat) {
  test::TempDir dir{"attune-api-test"};
  const std::string db = (dir.path / "t.db").string();
  EXPECT_NE(error_of([&] { Session("no-such-target", db); }).find("unknown target 'no-such-target'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { Session("cpu", (dir.path / "missing" / "t.db").string()); }).find("does not exist"),
            std::string::npos);
  EXPECT_NE(error_of([] { Session("cpu", ":memory:"); }).find("needs a database file"), std::string::npos);

  Session s("cpu", db);
  EXPECT_NE(error_of([&] { s.best("gemmx:M=4,N=4,K=4"); }).find("gemmx"), std::string::npos);
  EXPECT_NE(error_of([&] { s.best("tensor A[4,4 f32; C[m,n] += A[m,k] * B[k,n]"); }).find("1:14: expected"),
            std::string::npos);
  EXPECT_NE(error_of([&] { s.tune("gemm:M=4,N=4,K=4", {.trials = 0}); }).find("budget needs trials or seconds"),
            std::string::npos);
  EXPECT_NE(error_of([&] { s.load("gemm:M=4,N=4,K=4"); }).find("no verified kernel"), std::string::npos);
  // An op whose tensors would not fit the memory limit is refused before anything is allocated
  // or recorded (4 MiB here; the op needs ~3 x 2 x 4 MiB + 5 x 4 MiB).
  EXPECT_NE(error_of([&] {
              s.tune("gemm:M=1024,N=1024,K=1024", {.trials = 1, .max_memory = 4 << 20});
            }).find("more than the limit of 4.0 MiB"),
            std::string::npos);
  EXPECT_FALSE(s.best("gemm:M=1024,N=1024,K=1024"));
  EXPECT_NE(error_of([&] { Session("vta", db).load("gemm:M=4,N=4,K=4"); }).find("only cpu targets"), std::string::npos);
}

}  // namespace
}  // namespace attune
