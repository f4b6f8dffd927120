// A network whose best kernel packs its weight at the root (codegen/artifact.hpp): the runner
// packs it once at load and runs the prepacked entry, its output is the model's, and choosing
// another kernel for the task packs again or drops the packed copy; libgen --model's library
// packs it in NAME_open and computes the same.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>

#include "db/db.hpp"
#include "ir/op.hpp"
#include "network/gemm_relu_net.hpp"
#include "network/model_library.hpp"
#include "network/model_runner.hpp"
#include "schedule/schedule.hpp"
#include "schedule/transform.hpp"
#include "search/tuner.hpp"

namespace attune::network {
namespace {

constexpr int M = 5, K = 24, N = 48;

test::GemmReluNet gemm_relu(const std::string& name) { return {name, M, K, N, 5}; }

// The task's weight: its one const tensor.
std::string weight_of(const Op& op) {
  for (const auto& t : op.tensors)
    if (t.constant) return t.name;
  return "";
}

// The gemm+relu model's database with a few tuned kernels and, fastest by far, one that packs
// the weight at the root.
void tune_with_a_root_pack(const test::GemmReluNet& g) {
  ASSERT_EQ(g.plan.tasks.size(), 1u);
  const Op op = parse_spec(g.plan.tasks[0].spec);
  ASSERT_FALSE(weight_of(op).empty()) << g.plan.tasks[0].spec;
  TuneOptions o;  // a few kernels of the usual kind, at one thread
  o.db_path = g.db;
  o.trials = 4;
  o.threads = 1;
  o.seed = 2;
  o.confirm_top = 0;  // unconfirmed, every record ranks by its own median: the one below wins
  tune(op, o);

  // The fastest record by far: a pack of the weight at the root.
  {
    Database db = Database::open(g.db);
    const auto task = db.find_task(canonical_spec(op), tuning_target_name("cpu"));
    ASSERT_TRUE(task);
    Record r;
    r.task_id = task->id;
    r.trace = trace_to_string(Trace{{Transform::pack(weight_of(op), "root")}});
    r.trace_hash = "prepack-test";
    r.times_s = {1e-9};
    r.median_s = 1e-9;
    r.strategy = "test";
    r.flags = db.records(task->id).at(0).flags;  // as measured: a rebuild with other flags is refused
    r.trial = kNextTrial;
    note_measured_threads(r, 1);
    db.insert(r);
  }
}

TEST(ModelRunnerPrepack, PacksTheWeightOnceAndRunsTheModel) {
  const test::GemmReluNet g = gemm_relu("runner");
  ASSERT_NO_FATAL_FAILURE(tune_with_a_root_pack(g));
  ModelRunOptions ro;
  ro.db_path = g.db;
  ro.threads = 1;
  ro.alternatives = 2;
  ModelRunner runner(g.plan, ro);
  EXPECT_EQ(runner.kernels()[0].tuned_seconds, 1e-9);
  EXPECT_EQ(runner.packed_bytes(), (K * N * 4 + 63) / 64 * 64);
  const std::vector<graph::HostTensor> in = g.inputs();
  g.expect_right(runner.run(in));
  g.expect_right(runner.run(in));  // the packed copy is not consumed by a run

  ASSERT_EQ(runner.alternatives(0).size(), 2u);
  runner.choose(0, 1);  // a tuned kernel without the root pack (a random trace may pack too)
  g.expect_right(runner.run(in));
  runner.choose(0, 0);
  EXPECT_EQ(runner.packed_bytes(), (K * N * 4 + 63) / 64 * 64);
  g.expect_right(runner.run(in));
}

TEST(ModelRunnerPrepack, LibraryPacksAtOpen) {
  const test::GemmReluNet g = gemm_relu("library");
  ASSERT_NO_FATAL_FAILURE(tune_with_a_root_pack(g));
  const auto dir = test::test_temp_dir() / "prepacklib";
  ModelLibraryOptions o;
  o.db_path = g.db;
  o.out_dir = dir.string();
  o.name = "pnet";
  generate_model_library(g.plan, o);
  const std::string so = (dir / "libpnet.so").string();
  const std::string cc = "cc -O2 -march=native -fopenmp -shared -fPIC -I" + (dir / "include").string() + " " +
                         (dir / "src" / "pnet_model.c").string() + " " + (dir / "src" / "kernels" / "pnet_task0.c").string() +
                         " -o " + so + " -lm";
  ASSERT_EQ(std::system(cc.c_str()), 0) << cc;
  void* lib = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(lib) << ::dlerror();
  ASSERT_TRUE(::dlsym(lib, "pnet_task0_pack")) << "the library's kernel has no pack entry";
  using Open = void* (*)(const char*);
  using Infer = int (*)(void*, const float* const*, float* const*);
  using Close = void (*)(void*);
  const auto open = reinterpret_cast<Open>(::dlsym(lib, "pnet_open"));
  const auto infer = reinterpret_cast<Infer>(::dlsym(lib, "pnet_infer"));
  const auto close = reinterpret_cast<Close>(::dlsym(lib, "pnet_close"));
  ASSERT_TRUE(open && infer && close);
  void* model = open((dir / "pnet.weights").string().c_str());
  ASSERT_TRUE(model);
  std::vector<float> y(M * N, -1.0f);
  const float* in[] = {g.x.data()};
  float* out[] = {y.data()};
  for (int run = 0; run < 2; ++run) {
    ASSERT_EQ(infer(model, in, out), 0);
    g.expect_right({graph::HostTensor::floats({M, N}, y)});
  }
  close(model);
}

}  // namespace
}  // namespace attune::network
