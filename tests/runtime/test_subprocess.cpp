// Running programs without a shell: capture, exit codes, signals, timeouts, environment.
#include <signal.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/error.hpp"
#include "runtime/hash.hpp"
#include "runtime/interrupt.hpp"
#include "runtime/protocol.hpp"
#include "runtime/subprocess.hpp"

namespace attune::runtime {
namespace {

ProcessOptions with_timeout(double s) {
  ProcessOptions o;
  o.timeout_s = s;
  return o;
}

TEST(Subprocess, CapturesStdoutAndStderrSeparately) {
  auto r = run_process({"sh", "-c", "echo out; echo err >&2"}, with_timeout(10));
  ASSERT_TRUE(r.started) << r.spawn_error;
  EXPECT_TRUE(r.exited_ok());
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
}

TEST(Subprocess, ArgumentsAreNotInterpretedByAShell) {
  auto r = run_process({"echo", "$HOME; rm -rf /", "*"}, with_timeout(10));
  EXPECT_EQ(r.out, "$HOME; rm -rf / *\n");
}

TEST(Subprocess, ReportsExitCodeAndSignal) {
  auto code = run_process({"sh", "-c", "exit 7"}, with_timeout(10));
  EXPECT_EQ(code.exit_code, 7);
  EXPECT_EQ(code.signal, 0);
  auto sig = run_process({"sh", "-c", "kill -SEGV $$"}, with_timeout(10));
  EXPECT_EQ(sig.signal, SIGSEGV);
  EXPECT_FALSE(sig.exited_ok());
}

TEST(Subprocess, TimeoutKillsTheWholeProcessGroup) {
  // The grandchild holds the pipes open; the timeout must still end the call promptly.
  auto r = run_process({"sh", "-c", "sleep 30 & sleep 30"}, with_timeout(0.3));
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_LT(r.wall_s, 10);
}

TEST(Subprocess, ChildLeftBehindDoesNotBlock) {
  auto r = run_process({"sh", "-c", "sleep 30 & echo done"}, with_timeout(20));
  EXPECT_TRUE(r.exited_ok());
  EXPECT_EQ(r.out, "done\n");
  EXPECT_LT(r.wall_s, 10);
}

TEST(Subprocess, SetsEnvironmentVariables) {
  ProcessOptions o = with_timeout(10);
  o.env = {{"OMP_NUM_THREADS", "5"}};
  auto r = run_process({"sh", "-c", "echo $OMP_NUM_THREADS"}, o);
  EXPECT_EQ(r.out, "5\n");
}

TEST(Subprocess, MissingProgramIsASpawnError) {
  auto r = run_process({"attune-no-such-program-xyz"}, with_timeout(10));
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.spawn_error.find("attune-no-such-program-xyz"), std::string::npos) << r.spawn_error;
}

TEST(Subprocess, SignalNames) {
  EXPECT_EQ(signal_name(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(signal_name(SIGABRT), "SIGABRT");
  EXPECT_EQ(signal_name(SIGRTMIN + 3).rfind("signal ", 0), 0u);
}

TEST(Subprocess, FindProgram) {
  EXPECT_EQ(find_program("sh").front(), '/');
  EXPECT_EQ(find_program("attune-no-such-program-xyz"), "");
}

TEST(Hash, Fnv1aKnownValuesAndFieldSeparation) {
  EXPECT_EQ(Fnv1a64().hex(), "cbf29ce484222325");
  EXPECT_EQ(Fnv1a64().add("a").hex(), "af63dc4c8601ec8c");
  EXPECT_NE(Fnv1a64().field("ab").field("c").hex(), Fnv1a64().field("a").field("bc").hex());
}

TEST(Protocol, RequestRoundTrips) {
  WorkerRequest r;
  r.spec = "tensor A[2] f32; tensor B[2] f32; B[i] += A[i]";
  r.so_path = "/x/y.so";
  r.reference_path = "/x/ref.bin";
  r.seed = 0xfedcba9876543210ull;
  r.max_repeats = 9;
  r.warmup_s = 0.25;
  r.recheck = false;
  WorkerRequest back = request_from_json(nlohmann::json::parse(to_json(r).dump()));
  EXPECT_EQ(back.spec, r.spec);
  EXPECT_EQ(back.seed, r.seed);
  EXPECT_EQ(back.max_repeats, 9);
  EXPECT_EQ(back.warmup_s, 0.25);
  EXPECT_FALSE(back.recheck);
  EXPECT_EQ(to_json(back), to_json(r));
}

TEST(Protocol, NonFiniteErrorSurvivesJson) {
  WorkerResult r;
  r.status = "wrong_result";
  r.max_rel_error = std::numeric_limits<double>::quiet_NaN();
  WorkerResult back = result_from_json(nlohmann::json::parse(to_json(r).dump()));
  EXPECT_TRUE(std::isinf(back.max_rel_error));
}

TEST(Protocol, RejectsOtherVersions) {
  nlohmann::json j = to_json(WorkerRequest{});
  j["schema_version"] = 99;
  EXPECT_THROW(request_from_json(j), Error);
}

TEST(Protocol, Median) {
  EXPECT_EQ(median_of({}), 0);
  EXPECT_EQ(median_of({3, 1, 2}), 2);
  EXPECT_EQ(median_of({4, 1, 3, 2}), 2.5);
}

}  // namespace
}  // namespace attune::runtime
