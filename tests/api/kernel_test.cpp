// attune::Kernel through Session::load (attune.hpp): the loaded kernel computes what the
// reference evaluator does, describes its arguments, refuses bad calls, and owns its shared
// object (moving hands it on, destroying closes it). Nothing is timed.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "api/reference_check.hpp"
#include "api_test_util.hpp"
#include "attune/attune.hpp"
#include "ir/buffer.hpp"
#include "ir/evaluator.hpp"
#include "temp_dir.hpp"

namespace attune {
namespace {

const std::string kSpec = "gemm:M=12,N=20,K=9";

struct Loaded : ::testing::Test {
  test::TempDir dir{"attune-api-test"};
  std::string db = (dir.path / "k.db").string();
  void SetUp() override { test::record_trace(db, kSpec, test::kPlainTrace); }
};

bool library_is_loaded(const std::string& path) {
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (h) ::dlclose(h);
  return h != nullptr;
}

TEST_F(Loaded, ComputesWhatTheReferenceDoesOnOtherInputs) {
  const Kernel k = Session("cpu", db).load(kSpec);
  const Op op = op_from_cli(kSpec);
  std::vector<Buffer> got = make_buffers(op, 42), want = make_buffers(op, 42);
  evaluate(op, want);
  std::vector<void*> args;
  for (auto& b : got) args.push_back(b.data());
  k(args);
  EXPECT_TRUE(compare(got[2], want[2]).ok) << compare(got[2], want[2]).str();
  // Called again, it overwrites its output rather than adding to it.
  k(args.data());
  EXPECT_TRUE(compare(got[2], want[2]).ok) << compare(got[2], want[2]).str();
}

TEST_F(Loaded, DescribesItsTensorsInArgumentOrder) {
  const Kernel k = Session("cpu", db).load(kSpec);
  ASSERT_EQ(k.tensors().size(), 3u);
  const TensorInfo& a = k.tensors()[0];
  const TensorInfo& c = k.tensors()[2];
  EXPECT_EQ(a.name, "A");
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{12, 9}));
  EXPECT_EQ(a.dtype, "f32");
  EXPECT_FALSE(a.output);
  EXPECT_EQ(k.tensors()[1].name, "B");
  EXPECT_EQ(c.name, "C");
  EXPECT_EQ(c.shape, (std::vector<std::int64_t>{12, 20}));
  EXPECT_TRUE(c.output);
  EXPECT_EQ(k.measured().trace, test::kPlainTrace);
  EXPECT_GT(k.measured().gflops, 0);
}

TEST_F(Loaded, AWrongNumberOfBuffersOrANullOneIsAnError) {
  const Kernel k = Session("cpu", db).load(kSpec);
  std::vector<float> a(12 * 9), b(9 * 20), c(12 * 20);
  try {
    k({a.data(), b.data()});
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("takes 3 buffers (A, B, C), got 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(k({a.data(), nullptr, c.data()}), Error);
}

TEST_F(Loaded, MovingHandsTheLibraryOnAndDestroyingClosesIt) {
  const std::string other = "gemm:M=4,N=4,K=4";
  test::record_trace(db, other, test::kPlainTrace);
  std::string path;
  {
    Kernel first = Session("cpu", db).load(kSpec);
    path = first.library_path();
    EXPECT_TRUE(library_is_loaded(path));
    Kernel second = std::move(first);
    EXPECT_THROW(first.tensors(), Error);  // NOLINT(bugprone-use-after-move): what is tested
    EXPECT_EQ(second.library_path(), path);
    EXPECT_TRUE(library_is_loaded(path));
    Kernel third = Session("cpu", db).load(other);
    const std::string third_path = third.library_path();
    EXPECT_TRUE(library_is_loaded(third_path));
    third = std::move(second);  // third's own library is closed; it now owns the first one
    EXPECT_FALSE(library_is_loaded(third_path));
    EXPECT_EQ(third.library_path(), path);
    EXPECT_TRUE(library_is_loaded(path));
  }
  EXPECT_FALSE(library_is_loaded(path));
}

TEST(KernelCheck, AKernelThatDiffersFromTheReferenceIsRefused) {
  const Op op = op_from_cli(kSpec);
  void (*does_nothing)(void* const*) = [](void* const*) {};
  try {
    check_against_reference(op, does_nothing, "load: record 7 of this op");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("load: record 7 of this op: ", 0), 0u) << m;
    EXPECT_NE(m.find("differs from attune's reference evaluator"), std::string::npos) << m;
  }
}

TEST(KernelLoad, ARecordWhoseTraceNoLongerReplaysIsAClearError) {
  test::TempDir dir{"attune-api-test"};
  const std::string db = (dir.path / "k.db").string();
  test::record_trace(db, kSpec, R"({"schema_version":1,"steps":[{"kind":"split","loop":"zz","factors":[2,2]}]})");
  try {
    Session("cpu", db).load(kSpec);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no longer replays"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace attune
