// Records written by the previous release still load. fixtures/release-2a5b2f3.db was written
// by attune at commit 2a5b2f3 (the last release before the tuning engine and knobs-by-name):
//   gemm:M=24,N=32,K=20 on x86-avx2, strategy random over the mapping space, 8 trials and 8
//     confirmations;
//   a 3x3 int8 conv2d on vta, strategy evolutionary, 6 trials;
//   gemm:M=16,N=16,K=16 on x86-avx2, strategy rl, 3 trials.
// Every record must read back as the config (or trace) it was, its best must rebuild and
// compile, and tuning on must resume: measure only the new trials, never a recorded trace.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "codegen/codegen_vta.hpp"
#include "quick_tune.hpp"
#include "runtime/runtime.hpp"
#include "search/tuner.hpp"
#include "temp_dir.hpp"

namespace attune {
namespace {

namespace fs = std::filesystem;

const char* kFixture = ATTUNE_SOURCE_DIR "/tests/search/fixtures/release-2a5b2f3.db";

struct Copy {
  test::TempDir tmp;
  std::string path = (tmp.path / "old.db").string();
  Copy() { fs::copy_file(kFixture, path); }
};

TaskInfo task_of(const Database& db, const std::string& spec, const std::string& target) {
  const auto t = db.find_task(canonical_spec(op_from_cli(spec)), target);
  EXPECT_TRUE(t.has_value()) << spec << " on " << target;
  return t.value_or(TaskInfo{});
}

TEST(Migration, KnobRecordsReadBackAsTheConfigsTheyWere) {
  const Database db = Database::open(kFixture, OpenMode::read_only);
  const Target avx2 = load_target("x86-avx2");
  {
    const Op op = op_from_cli("gemm:M=24,N=32,K=20");
    MappingSpaceOptions mo;
    mo.threads = 1;
    mo.vectors = cpu_vector_registers(avx2);
    const auto space = make_mapping_space(op, avx2, mo);
    int read = 0;
    for (const auto& r : db.records(task_of(db, "gemm:M=24,N=32,K=20", "x86-avx2").id)) {
      const auto c = space->config_from_record(r.features);
      ASSERT_TRUE(c.has_value()) << r.features.dump();
      EXPECT_EQ(space->trace_json(*c), r.trace);  // the very schedule it measured
      ++read;
    }
    EXPECT_EQ(read, 16);
  }
  {
    const std::string spec = "conv2d:N=1,H=8,W=8,C=16,K=16,R=3,S=3,stride=1,pad=1,dtype=i8";
    const Op op = op_from_cli(spec);
    const auto space = make_vta_space(op, vta_config_for("vta"));
    int read = 0;
    for (const auto& r : db.records(task_of(db, spec, "vta").id)) {
      const auto c = space->config_from_record(r.features);
      ASSERT_TRUE(c.has_value()) << r.features.dump();
      EXPECT_EQ(space->trace_json(*c), r.trace);
      ++read;
    }
    EXPECT_EQ(read, 6);
  }
}

TEST(Migration, RlTracesReplayAndTheBestRebuilds) {
  const Database db = Database::open(kFixture, OpenMode::read_only);
  const Target avx2 = load_target("x86-avx2");
  const Op rl_op = op_from_cli("gemm:M=16,N=16,K=16");
  for (const auto& r : db.records(task_of(db, "gemm:M=16,N=16,K=16", "x86-avx2").id))
    EXPECT_NO_THROW(replay(rl_op, trace_from_string(r.trace))) << r.trace;

  const Op op = op_from_cli("gemm:M=24,N=32,K=20");
  const auto best = db.best(task_of(db, "gemm:M=24,N=32,K=20", "x86-avx2").id);
  ASSERT_TRUE(best.has_value());
  EXPECT_FALSE(best->features.contains(kSourceHashFeature));  // written before hashes were kept
  const Artifact a = rebuild_recorded(op, avx2, *best);
  const BuildResult b = Builder().build(a);
  EXPECT_TRUE(b.ok) << b.error;
}

TEST(Migration, TuningResumesWithoutMeasuringARecordedTrace) {
  Copy copy;
  const Op op = op_from_cli("gemm:M=24,N=32,K=20");
  TuneOptions o = test::quick_tune(copy.path, 11);
  o.target = "x86-avx2";
  o.confirm_top = 0;
  const auto res = tune(op, o);
  EXPECT_EQ(res.trials_before, 8);
  EXPECT_EQ(res.trials_run, 3);
  const Database db = Database::open(copy.path, OpenMode::read_only);
  std::set<std::string> traces;
  int trials = 0;
  for (const auto& r : db.records(res.task_id)) {
    if (r.strategy == kConfirmStrategy) continue;
    ++trials;
    EXPECT_TRUE(traces.insert(r.trace_hash).second) << "measured twice: " << r.trace;
  }
  EXPECT_EQ(trials, 11);
}

}  // namespace
}  // namespace attune
