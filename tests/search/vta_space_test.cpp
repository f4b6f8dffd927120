// The VTA knob space (make_vta_space), its trace JSON, the tuning loop on the vta target, the
// space statistics, and every layer of bench/workloads/vta.txt run bit-exact with one schedule.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "codegen/codegen.hpp"
#include "codegen/codegen_vta.hpp"
#include "ir/error.hpp"
#include "search/tuner.hpp"

namespace attune {
namespace {

Op conv_small() { return op_from_cli("conv2d:N=1,H=8,W=8,C=32,K=32,R=3,S=3,stride=1,pad=1,dtype=int8"); }

std::vector<std::string> knob_names(const Space& s) {
  std::vector<std::string> n;
  for (const auto& k : s.knobs()) n.push_back(k.name);
  return n;
}

TEST(VtaSpace, KnobsAreAutoTvmsTemplate) {
  const VtaConfig cfg = default_vta_config();
  const auto conv = make_vta_space(conv_small(), cfg);
  EXPECT_EQ(knob_names(*conv),
            (std::vector<std::string>{"tile_b", "tile_h", "tile_w", "tile_ci", "tile_co", "oc_nthread", "h_nthread"}));
  EXPECT_EQ(conv->knobs()[1].choices, (std::vector<std::int64_t>{1, 2, 4, 8}));  // divisors of OH = 8
  EXPECT_EQ(conv->knobs()[3].choices, (std::vector<std::int64_t>{1, 2}));        // C/16 = 2
  EXPECT_EQ(conv->size(), 1u * 4 * 4 * 2 * 2 * 2 * 2);
  const auto g = make_vta_space(op_from_cli("gemm:M=16,N=64,K=32,dtype=int8"), cfg);
  EXPECT_EQ(knob_names(*g), (std::vector<std::string>{"tile_b", "tile_ci", "tile_co", "oc_nthread", "h_nthread"}));
}

TEST(VtaSpace, TraceJsonStoresTheKnobs) {
  const auto space = make_vta_space(conv_small(), default_vta_config());
  const Config c{0, 2, 3, 1, 0, 1, 0};
  const auto j = nlohmann::json::parse(space->trace_json(c));
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["target"], "vta");
  EXPECT_EQ(j["knobs"], space->describe(c));
  const Schedule s = schedule_from_string(space->trace_json(c));
  ASSERT_TRUE(s.knobs.has_value());
  const VtaKnobs k = VtaKnobs::of(*s.knobs);
  EXPECT_EQ(
      k,
      (VtaKnobs{.tile_b = 1, .tile_h = 4, .tile_w = 8, .tile_ci = 2, .tile_co = 1, .oc_nthread = 2, .h_nthread = 1}));
  EXPECT_THROW(space->trace(c), Error);
  EXPECT_THROW(schedule_from_string(R"({"schema_version":1,"target":"vta","knobs":{"tile_q":2}})"), Error);
}

TEST(VtaSpace, TargetArguments) {
  EXPECT_TRUE(is_vta_target_arg("vta"));
  EXPECT_TRUE(is_vta_target_arg("vta:extended"));
  EXPECT_FALSE(is_vta_target_arg("cpu"));
  EXPECT_EQ(vta_config_for("vta").name, "default");
  EXPECT_EQ(vta_config_for("vta:extended").log_acc_buff_size, 18);
  EXPECT_EQ(vta_config_for("vta:" + vta_target_path("extended")).name, "extended");
  EXPECT_THROW(vta_config_for("vta:nosuch"), Error);
}

void expect_tunes(const std::string& strategy) {
  SCOPED_TRACE(strategy);
  TuneOptions o;
  o.target = "vta";
  o.trials = 24;
  o.strategy = strategy;
  o.db_path = ":memory:";
  o.seed = 3;
  const TuneResult r = tune(conv_small(), o);
  EXPECT_EQ(r.trials_run, 24);
  ASSERT_TRUE(r.best.has_value());
  const Record& b = *r.best;
  EXPECT_EQ(b.status, Status::ok);
  const auto cycles = b.hidden_features.at("cycles").get<std::uint64_t>();
  EXPECT_DOUBLE_EQ(b.median_s, double(cycles) / kVtaClockHz);
  const auto trace = nlohmann::json::parse(b.trace);
  EXPECT_EQ(trace["target"], "vta");
  // The recorded knobs lower again to a program with the same cycles, bit-exact.
  const VtaConfig cfg = default_vta_config();
  const Lowered l = lower(schedule_from_string(b.trace), conv_small(), load_target("vta"), {.vta = &cfg});
  ASSERT_TRUE(l.vta);
  const VtaCompiled& c = *l.vta;
  EXPECT_EQ(vta_time(c, cfg).cycles, cycles);
  EXPECT_TRUE(vta_verify(conv_small(), c, cfg, 11).ok());
}

TEST(VtaTune, EveryStrategyFindsAVerifiedSchedule) {
  for (const auto& s : strategy_names())
    if (s != "predict") expect_tunes(s);  // zero-shot needs other layers' records (transfer_test.cpp)
}

TEST(VtaTune, SelectsTheExtendedConfig) {
  TuneOptions o;
  o.target = "vta:extended";
  o.trials = 8;
  o.strategy = "random";
  o.db_path = ":memory:";
  const TuneResult r = tune(conv_small(), o);
  ASSERT_TRUE(r.best.has_value());
  EXPECT_NE(r.best->compiler.find("extended"), std::string::npos);
}

TEST(VtaSpaceStats, CountsEveryConfigOnce) {
  const SpaceStats st = vta_space_stats(conv_small(), default_vta_config(), 1000);
  EXPECT_EQ(st.space_size, 256u);
  EXPECT_EQ(st.evaluated, 256u);
  std::size_t invalid = 0;
  for (const auto& [kind, n] : st.invalid_by_kind) invalid += n;
  EXPECT_EQ(st.valid + invalid, st.evaluated);
  EXPECT_GT(st.valid, 0u);
  EXPECT_GT(st.invalid_by_kind.at("compile_error:vthread_split"), 0u);
  EXPECT_GT(st.invalid_by_kind.at("runtime_error:acc_hazard"), 0u);
  EXPECT_GT(st.best_cycles, 0u);
  // A sample is reproducible.
  const SpaceStats a = vta_space_stats(conv_small(), default_vta_config(), 50);
  const SpaceStats b = vta_space_stats(conv_small(), default_vta_config(), 50);
  EXPECT_EQ(a.evaluated, 50u);
  EXPECT_EQ(a.to_json(), b.to_json());
}

// Each layer VTA's ResNet-18 tutorial offloads (and the int8 GEMM): one schedule found by a
// short random walk over the space runs bit-exact against the reference evaluator.
TEST(VtaWorkloads, EveryLayerRunsBitExact) {
  const std::string path = std::string(ATTUNE_SOURCE_DIR) + "/bench/workloads/vta.txt";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  const VtaConfig cfg = default_vta_config();
  for (const Op& op : load_workload_file(path)) {
    SCOPED_TRACE(op.name);
    const auto space = make_vta_space(op, cfg);
    std::mt19937_64 rng(1);
    bool found = false;
    for (int tries = 0; tries < 300 && !found; ++tries) {
      const VtaKnobs k = VtaKnobs::of(*space->schedule(space->random_config(rng)).knobs);
      const VtaCompiled c = compile_vta(op, k, cfg);
      if (!c.ok() || !vta_time(c, cfg).m.ok()) continue;
      found = true;
      const Measurement m = vta_verify(op, c, cfg, 5);
      EXPECT_EQ(m.status, Status::ok) << k.to_json().dump() << ": " << m.error;
    }
    EXPECT_TRUE(found);
  }
}

}  // namespace
}  // namespace attune
