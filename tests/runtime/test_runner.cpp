// Runner: every way a candidate can end maps to its status, and none of them hurts the caller.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "ir/error.hpp"
#include "ir/evaluator.hpp"
#include "kernels.hpp"

namespace attune::test {
namespace {

// One builder and runner for the suite: builds are cached, so each test pays only for its own.
class RunnerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir;
    builder_ = new Builder(build_options(*dir_));
    runner_ = new Runner;
  }
  static void TearDownTestSuite() {
    delete runner_;
    delete builder_;
    delete dir_;
  }

  static std::string built(const std::string& body) {
    BuildResult r = builder_->build(c_artifact(body));
    EXPECT_TRUE(r.ok) << r.error;
    return r.so_path;
  }
  static Measurement run(const std::string& body, MeasureOptions o = quick_options()) {
    return runner_->measure(gemm8(), built(body), o);
  }

  static ScratchDir* dir_;
  static Builder* builder_;
  static Runner* runner_;
};
ScratchDir* RunnerTest::dir_ = nullptr;
Builder* RunnerTest::builder_ = nullptr;
Runner* RunnerTest::runner_ = nullptr;

TEST_F(RunnerTest, CorrectKernelIsTimed) {
  Measurement m = run(kGood);
  ASSERT_EQ(m.status, Status::ok) << m.error;
  EXPECT_TRUE(m.error.empty());
  EXPECT_GE(m.times_s.size(), 3u);
  EXPECT_LE(m.times_s.size(), 6u);
  for (double t : m.times_s) EXPECT_GT(t, 0);
  EXPECT_GT(m.median_s, 0);
  EXPECT_LE(m.max_rel_error, 1e-4);
}

// A first call slower than the cut-off is the only one: the tuner's way to spend one call, not
// several, on a candidate far behind its best. Below the cut-off the usual repeats follow.
TEST_F(RunnerTest, CandidatePastTheCutoffIsTimedOnce) {
  MeasureOptions o = quick_options();
  o.cutoff_s = 1e-12;  // every call takes longer
  Measurement m = run(kGood, o);
  ASSERT_EQ(m.status, Status::ok) << m.error;
  ASSERT_EQ(m.times_s.size(), 1u);
  EXPECT_EQ(m.median_s, m.times_s[0]);
  EXPECT_LE(m.max_rel_error, 1e-4);

  o.cutoff_s = 1e6;  // no call takes that long
  EXPECT_GE(run(kGood, o).times_s.size(), 3u);
}

// A slow first call alone does not decide: it is cold (it packs what the timed entry finds
// packed, touches its workspace for the first time), so a second call does. Decided by the
// first, every packing convolution of a VM looked 30x slower than it was.
TEST_F(RunnerTest, ColdFirstCallPastTheCutoffIsNotItsTime) {
  MeasureOptions o = quick_options();
  o.cutoff_s = 0.02;  // the first call sleeps 60 ms, the others take microseconds
  const Measurement m = run(slow_first_call(), o);
  ASSERT_EQ(m.status, Status::ok) << m.error;
  EXPECT_GE(m.times_s.size(), 3u) << "timed like any candidate within the cut-off";
  EXPECT_LT(m.median_s, o.cutoff_s);
}

// Once every repeat so far (two at least) is past give_up_s, timing stops: a candidate clearly
// behind the best is not timed to the last digit. Below it the usual repeats follow.
TEST_F(RunnerTest, TimingStopsOnceClearlySlowerThanGiveUp) {
  MeasureOptions o = quick_options();
  o.give_up_s = 1e-12;
  Measurement m = run(kGood, o);
  ASSERT_EQ(m.status, Status::ok) << m.error;
  EXPECT_EQ(m.times_s.size(), 2u);
  o.give_up_s = 1e6;
  EXPECT_GE(run(kGood, o).times_s.size(), 3u);
}

// One slow repeat is not the candidate's time: the next ones, fast, are timed as usual.
TEST_F(RunnerTest, OneSlowRepeatDoesNotGiveUp) {
  MeasureOptions o = quick_options();
  o.warmup = 2;
  o.warmup_s = 0;
  o.give_up_s = 1e-3;  // the slow calls sleep 5 ms, the others take microseconds
  const Measurement m = run(one_slow_repeat(), o);
  ASSERT_EQ(m.status, Status::ok) << m.error;
  ASSERT_GE(m.times_s.size(), 3u);
  EXPECT_GT(m.times_s[0], o.give_up_s) << "the first repeat was the slow one";
  EXPECT_LT(m.median_s, o.give_up_s);
}

// What the measurement cost, step by step, comes back with it (the tune summary's breakdown).
TEST_F(RunnerTest, MeasurementReportsItsPhases) {
  const Measurement m = run(kGood);
  ASSERT_EQ(m.status, Status::ok) << m.error;
  for (const char* phase : {"spawn", "setup", "load", "check", "warmup", "timing", "recheck"}) {
    ASSERT_TRUE(m.phases_s.count(phase)) << phase;
    EXPECT_GE(m.phases_s.at(phase), 0) << phase;
  }
}

TEST_F(RunnerTest, WrongOutputPastTheCutoffIsStillAWrongResult) {
  MeasureOptions o = quick_options();
  o.cutoff_s = 1e-12;
  EXPECT_EQ(run(kWrong, o).status, Status::wrong_result);
}

TEST_F(RunnerTest, SegfaultIsARuntimeError) {
  Measurement m = run(kSegfault);
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_NE(m.error.find("SIGSEGV"), std::string::npos) << m.error;
  EXPECT_TRUE(m.times_s.empty());
  EXPECT_EQ(m.median_s, 0);
}

TEST_F(RunnerTest, AbortIsARuntimeError) {
  Measurement m = run(kAbort);
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_NE(m.error.find("SIGABRT"), std::string::npos) << m.error;
}

TEST_F(RunnerTest, InfiniteLoopTimesOut) {
  MeasureOptions o = quick_options();
  o.timeout_s = 1.5;
  Measurement m = run(kHang, o);
  EXPECT_EQ(m.status, Status::timeout);
  EXPECT_NE(m.error.find("1.5"), std::string::npos) << m.error;
}

TEST_F(RunnerTest, WrongOutputIsAWrongResult) {
  Measurement m = run(kWrong);
  EXPECT_EQ(m.status, Status::wrong_result);
  EXPECT_NE(m.error.find("output C differs"), std::string::npos) << m.error;
  EXPECT_GT(m.max_rel_error, 1e-4);
  EXPECT_TRUE(m.times_s.empty());
}

TEST_F(RunnerTest, AccumulatingKernelFailsTheRecheck) {
  Measurement m = run(kAccumulates);
  EXPECT_EQ(m.status, Status::wrong_result);
  EXPECT_NE(m.error.find("repeated calls"), std::string::npos) << m.error;
  MeasureOptions o = quick_options();
  o.recheck = false;
  EXPECT_EQ(run(kAccumulates, o).status, Status::ok);
}

TEST_F(RunnerTest, ExitInsideTheKernelIsARuntimeError) {
  Measurement m = run(kExit);
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_NE(m.error.find("code 3"), std::string::npos) << m.error;
}

TEST_F(RunnerTest, KernelOutputOnStdoutDoesNotDisturbTheResult) {
  Measurement m = run(kChatty);
  EXPECT_EQ(m.status, Status::ok) << m.error;
}

TEST_F(RunnerTest, MissingEntryIsARuntimeError) {
  MeasureOptions o = quick_options();
  o.entry = "no_such_kernel";
  Measurement m = run(kGood, o);
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_NE(m.error.find("no_such_kernel"), std::string::npos) << m.error;
}

TEST_F(RunnerTest, UnloadableObjectIsARuntimeError) {
  const std::string bogus = dir_->path() + "/not-a-library.so";
  FILE* f = std::fopen(bogus.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("this is not ELF\n", f);
  std::fclose(f);
  Measurement m = runner_->measure(gemm8(), bogus, quick_options());
  EXPECT_EQ(m.status, Status::runtime_error);
  EXPECT_NE(m.error.find("dlopen"), std::string::npos) << m.error;
}

TEST_F(RunnerTest, ThreadCountReachesTheWorker) {
  MeasureOptions o = quick_options();
  o.threads = 3;
  o.recheck = false;
  // The kernel aborts unless OMP_NUM_THREADS=3; it writes zeros, so compare with zeros.
  Op op = gemm8();
  Buffer zeros(DType::f32, {8, 8});
  Measurement m = runner_->measure_with_reference(op, built(kNeedsThreads3), zeros, o);
  EXPECT_EQ(m.status, Status::ok) << m.error;
  o.threads = 2;
  EXPECT_EQ(runner_->measure_with_reference(op, built(kNeedsThreads3), zeros, o).status, Status::runtime_error);
}

// A const input (a model's weight) is read cold by every timed call, as in a run of the model:
// each repeat is then one call after the eviction, where a plain op's repeat is as many calls as
// fill min_repeat_s. The kernel counts its calls by appending to a file the test names.
TEST_F(RunnerTest, ConstInputsAreTimedOneColdCallPerRepeat) {
  // kGood, counting its calls first.
  std::string counting = kGood;
  const std::string entry = "void attune_kernel(void* const* buffers) {\n";
  counting.insert(counting.find(entry) + entry.size(),
                  "  FILE* f = fopen(getenv(\"ATTUNE_TEST_CALL_LOG\"), \"a\");\n"
                  "  if (f) { fputc('x', f); fclose(f); }\n");
  const std::string log = dir_->path() + "/calls.log";
  ASSERT_EQ(::setenv("ATTUNE_TEST_CALL_LOG", log.c_str(), 1), 0);
  auto calls_of = [&](const Op& op) {
    std::remove(log.c_str());
    MeasureOptions o = quick_options();
    o.warmup = 1;
    o.warmup_s = 0;
    o.min_repeat_s = 0.05;  // far longer than one call: a warm repeat makes many
    o.recheck = false;
    const Measurement m = runner_->measure(op, built(counting), o);
    EXPECT_EQ(m.status, Status::ok) << m.error;
    std::ifstream in(log);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return std::pair<std::size_t, std::size_t>(text.size(), m.times_s.size());
  };
  // The check, one warm-up call, the first timed call that sizes a repeat, then the repeats.
  const auto [cold_calls, cold_repeats] = calls_of(parse_spec(
      "tensor A[8,8] f32; tensor B[8,8] f32 const; tensor C[8,8] f32; C[m,n] += A[m,k] * B[k,n]"));
  EXPECT_EQ(cold_calls, 3 + cold_repeats);
  const auto [warm_calls, warm_repeats] = calls_of(gemm8());
  EXPECT_GT(warm_calls, 3 + 2 * warm_repeats);
  ::unsetenv("ATTUNE_TEST_CALL_LOG");
}

TEST_F(RunnerTest, CustomReference) {
  Op op = gemm8();
  std::vector<Buffer> buffers = make_buffers(op, 1);
  evaluate(op, buffers);
  Buffer reference = buffers[2];
  EXPECT_EQ(runner_->measure_with_reference(op, built(kGood), reference, quick_options()).status, Status::ok);
  reference.set(5, reference.get(5) + 10);
  Measurement m = runner_->measure_with_reference(op, built(kGood), reference, quick_options());
  EXPECT_EQ(m.status, Status::wrong_result) << m.error;
}

TEST_F(RunnerTest, ReferenceOfTheWrongShapeIsAUserError) {
  Buffer bad(DType::f32, {4, 4});
  EXPECT_THROW(runner_->measure_with_reference(gemm8(), built(kGood), bad, quick_options()), Error);
}

TEST_F(RunnerTest, BatchOfEveryOutcome) {
  std::vector<Artifact> batch;
  for (const char* body : {kGood, kSegfault, kHang, kWrong, kSyntaxError, kAbort}) batch.push_back(c_artifact(body));
  std::vector<BuildResult> builds = builder_->build_batch(batch);
  MeasureOptions o = quick_options();
  o.timeout_s = 3;  // generous for the good one on a loaded machine; the hang pays it once
  std::vector<Measurement> m = runner_->measure_batch(gemm8(), builds, o);
  ASSERT_EQ(m.size(), batch.size());
  EXPECT_EQ(m[0].status, Status::ok) << m[0].error;
  EXPECT_GE(m[0].times_s.size(), 3u);
  EXPECT_EQ(m[1].status, Status::runtime_error);
  EXPECT_NE(m[1].error.find("SIGSEGV"), std::string::npos) << m[1].error;
  EXPECT_EQ(m[2].status, Status::timeout);
  EXPECT_EQ(m[3].status, Status::wrong_result);
  EXPECT_EQ(m[4].status, Status::compile_error);
  EXPECT_NE(m[4].error.find("error"), std::string::npos) << m[4].error;
  EXPECT_EQ(m[5].status, Status::runtime_error);
  EXPECT_NE(m[5].error.find("SIGABRT"), std::string::npos) << m[5].error;
}

TEST_F(RunnerTest, BatchOfPathsAndTheProcessWideRunner) {
  std::vector<std::string> paths = {built(kGood), built(kWrong)};
  auto m = measure_batch(gemm8(), paths, quick_options());
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].status, Status::ok) << m[0].error;
  EXPECT_EQ(m[1].status, Status::wrong_result);
}

TEST(RunnerSetup, MissingWorkerIsAUserError) {
  RunnerOptions o;
  o.worker = "/nonexistent/attune-worker";
  EXPECT_THROW(Runner{o}, Error);
}

// A network task (an op with a const weight) is timed after the weights are evicted, the caches
// scrubbed and the activations written back in per-thread blocks: none of it changes a value, so
// the result still passes the check made after timing (recheck), at one thread and at two.
TEST_F(RunnerTest, PlacingANetworksActivationsKeepsTheirValues) {
  const Op with_weight =
      parse_spec("tensor A[8,8] f32; tensor B[8,8] f32 const; tensor C[8,8] f32; C[m,n] += A[m,k] * B[k,n]");
  for (int threads : {1, 2}) {
    MeasureOptions o = quick_options();
    o.threads = threads;
    o.recheck = true;
    const Measurement m = runner_->measure(with_weight, built(kGood), o);
    EXPECT_EQ(m.status, Status::ok) << threads << " threads: " << m.error;
    EXPECT_FALSE(m.times_s.empty()) << threads << " threads";
  }
}

}  // namespace
}  // namespace attune::test
