// The kernel a user receives is the kernel the tuner measured: tune() stores the hash of the C
// it measured, and rebuild_recorded() (libgen, `attune best`, the benches, the demo) refuses to
// hand out anything else. The demo once rebuilt AVX-512 records at AVX2 width and reported a
// kernel 4x slower than the one tuned; these tests pin that down without timing anything.
#include <gtest/gtest.h>

#include "codegen/codegen.hpp"
#include "codegen/codegen_cpu.hpp"
#include "ir/error.hpp"
#include "quick_tune.hpp"
#include "search/tuner.hpp"
#include "temp_dir.hpp"

namespace attune {
namespace {

const char* kTrace = R"({"schema_version":1,"steps":[{"kind":"split","loop":"n","factors":[2,16]},)"
                     R"({"kind":"reorder","loops":["m","n.0","k","n.1"]},{"kind":"vectorize","loop":"n.1"}]})";

// A record as the engine writes it: the trace text lowered for `target` (as cpu_backend.cpp
// does), and what was built.
Record measured_on(const Op& op, const Target& target) {
  Record r;
  r.id = 7;
  r.trace = kTrace;
  r.features = {{"space", "test"}};
  note_measured_artifact(r, lower(schedule_from_string(kTrace), op, target).artifact);
  return r;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CodegenOptions, FollowTheTarget) {
  EXPECT_EQ(cpu_codegen_options(load_target("x86-avx512")).vector_bits, 512);
  EXPECT_EQ(cpu_codegen_options(load_target("x86-avx2")).vector_bits, 256);
  const auto flags = cpu_codegen_options(load_target("x86-avx2")).flags;
  EXPECT_NE(std::find(flags.begin(), flags.end(), "-fno-predictive-commoning"), flags.end());
  EXPECT_NE(error_of([] { cpu_codegen_options(load_target("vta")); }).find("only cpu targets"), std::string::npos);
}

TEST(RebuildRecorded, GivesBackTheMeasuredSourceAndFlags) {
  const Op op = op_from_cli("gemm:M=8,N=32,K=8");
  for (const char* t : {"x86-avx2", "x86-avx512"}) {
    const Target target = load_target(t);
    const Record r = measured_on(op, target);
    const Artifact a = rebuild_recorded(op, target, r);
    EXPECT_EQ(content_hash(a.source), r.features[kSourceHashFeature].get<std::string>()) << t;
    EXPECT_EQ(a.flags, r.flags) << t;
  }
}

TEST(RebuildRecorded, RefusesAKernelOfAnotherVectorWidth) {
  // The demo's old bug: a record measured at 512 bits rebuilt with 256-bit options.
  const Op op = op_from_cli("gemm:M=8,N=32,K=8");
  const Record r = measured_on(op, load_target("x86-avx512"));
  Target narrow = load_target("x86-avx512");
  narrow.vector_bits = 256;
  EXPECT_NE(error_of([&] { rebuild_recorded(op, narrow, r); }).find("is not the one measured"), std::string::npos);
}

TEST(RebuildRecorded, RefusesOtherFlagsUnlessTheCallerCompilesItself) {
  const Op op = op_from_cli("gemm:M=8,N=32,K=8");
  const Target target = load_target("x86-avx2");
  Record r = measured_on(op, target);
  r.flags.push_back("-O1");
  EXPECT_NE(error_of([&] { rebuild_recorded(op, target, r); }).find("other flags"), std::string::npos);
  EXPECT_EQ(error_of([&] { rebuild_recorded(op, target, r, RebuildCheck::source_only); }), "(no error)");
}

TEST(RebuildRecorded, AcceptsRecordsWrittenBeforeHashesWereKept) {
  const Op op = op_from_cli("gemm:M=8,N=32,K=8");
  Record r = measured_on(op, load_target("x86-avx2"));
  r.features.erase(kSourceHashFeature);
  r.flags.clear();
  EXPECT_EQ(error_of([&] { rebuild_recorded(op, load_target("x86-avx2"), r); }), "(no error)");
}

TEST(RebuildRecorded, TunedBestIsTheMeasuredKernel) {
  test::TempDir tmp;
  const Op op = op_from_cli("gemm:M=24,N=32,K=20");
  TuneOptions o = test::quick_tune((tmp.path / "t.db").string(), 6);
  o.confirm_top = 1;
  o.confirm_runs = 1;
  const auto res = tune(op, o);
  ASSERT_TRUE(res.best.has_value());
  ASSERT_TRUE(res.best->features.contains(kSourceHashFeature));
  const Artifact a = rebuild_recorded(op, load_target("cpu"), *res.best);
  EXPECT_EQ(content_hash(a.source), res.best->features[kSourceHashFeature].get<std::string>());
  EXPECT_EQ(a.flags, res.best->flags);
}

}  // namespace
}  // namespace attune
