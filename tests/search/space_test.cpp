// The CPU schedule space: every knob config of every family expands to a trace that either
// replays to a nest or is refused with a reason (never an internal error), and the strategies
// propose fresh, reproducible configs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "codegen/codegen_cpu.hpp"
#include "ir/error.hpp"
#include "search/tuner.hpp"

namespace attune {
namespace {

const char* kSpecs[] = {
    "gemm:M=64,N=48,K=40",
    "gemm:M=1,N=64,K=32",
    "batch_matmul:B=2,M=16,N=16,K=8",
    "conv1d:N=1,L=20,C=8,K=16,R=3,stride=2,pad=1",
    "conv2d:N=1,H=14,W=14,C=8,K=16,R=3,S=3,stride=1,pad=1,layout=NCHW",
    "conv2d:N=1,H=14,W=14,C=8,K=16,R=3,S=3,stride=2,pad=1,groups=2,layout=NHWC",
    "depthwise_conv2d:N=1,H=12,W=12,C=16,R=3,S=3,stride=1,pad=1,layout=NHWC",
    "conv3d:N=1,D=4,H=6,W=6,C=4,K=8,T=1,R=1,S=1,layout=NDHWC",
    "conv2d_transpose:N=1,H=4,W=4,C=8,K=8,R=4,S=4,stride=2,pad=1,layout=NHWC",
    "conv2d_capsule:N=1,H=6,W=6,C=4,K=8,R=3,S=3,stride=1,pad=1,capsule=2",
};

TEST(CpuSpace, RandomConfigsReplayOrAreRefusedWithAReason) {
  std::mt19937_64 rng(3);
  for (const char* spec : kSpecs) {
    const Op op = op_from_cli(spec);
    const auto space = make_cpu_space(op, 2);
    ASSERT_GT(space->knobs().size(), 3u) << spec;
    int ok = 0;
    for (int i = 0; i < 60; ++i) {
      const Config c = space->random_config(rng);
      try {
        replay(op, space->trace(c));
        ++ok;
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("not applicable"), std::string::npos) << e.what();
      }
    }
    EXPECT_GT(ok, 0) << "no config of " << spec << " replays";
  }
}

TEST(CpuSpace, SeedsReplayAndCoverEveryVectorDimension) {
  for (const char* spec : kSpecs) {
    const Op op = op_from_cli(spec);
    const auto space = make_cpu_space(op, 2);
    const auto seeds = space->seed_configs();
    EXPECT_FALSE(seeds.empty()) << spec;
    std::set<int> vecs;
    for (const auto& c : seeds) {
      EXPECT_TRUE(space->admissible(c)) << spec;
      EXPECT_NO_THROW(replay(op, space->trace(c))) << spec << ": " << space->describe(c).dump();
      vecs.insert(c[0]);
    }
    EXPECT_EQ(vecs.size(), space->knobs()[0].choices.size()) << spec;
  }
  // NCHW: the output channels are offered as the vector dimension, with the weights packed and
  // the input padded.
  const Op nchw = op_from_cli(kSpecs[4]);
  const auto space = make_cpu_space(nchw, 1);
  ASSERT_EQ(space->knobs()[0].name, "vec_var");
  ASSERT_EQ(space->knobs()[0].choices.size(), 2u);
  bool over_k = false;
  for (const auto& c : space->seed_configs()) {
    const auto d = space->describe(c);
    over_k = over_k || (c[0] == 1 && d["pack_W"] == 3 && d["pack_I"] == 4);
  }
  EXPECT_TRUE(over_k);

  // A long w read with a stride (ResNet's first layer: 112 output columns, stride 2) offers k
  // too; the same layer at stride 1 keeps w alone.
  const char* strided = "conv2d:N=1,H=224,W=224,C=3,K=64,R=7,S=7,stride=2,pad=3,layout=NCHW";
  EXPECT_EQ(make_cpu_space(op_from_cli(strided), 1)->knobs()[0].choices.size(), 2u);
  const char* plain = "conv2d:N=1,H=112,W=112,C=3,K=64,R=7,S=7,stride=1,pad=3,layout=NCHW";
  EXPECT_EQ(make_cpu_space(op_from_cli(plain), 1)->knobs()[0].choices.size(), 1u);
}

// A vector loop never checks its lanes: an input the vector dimension reads outside its
// bounds (a padded NCHW convolution's columns) is copied first, so no bounds check lands inside
// a `#pragma omp simd` loop of the generated C (gcc leaves such a loop scalar: rn50_c2_3x3's
// fastest kernel reading its input in place ran at 11x the best). Along the output channels,
// whose reads of the input stay inside, the input may be read in place.
TEST(CpuSpace, VectorLoopsNeverCheckTheirLanes) {
  const Op op = op_from_cli(kSpecs[4]);
  const auto space = make_cpu_space(op, 2, cpu_vector_registers(load_target("x86-avx512")));
  // The first line of `c` whose bound check inside a `#pragma omp simd` loop depends on that
  // loop's variable, a check per lane ("": none). A check of an outer variable (a row tile's
  // tail) is the same for every lane.
  auto checked_lanes = [](const std::string& c) {
    std::istringstream in(c);
    std::string line, lane;  // lane: the simd loop's variable while inside one
    bool pragma = false;
    while (std::getline(in, line)) {
      if (line.find("#pragma omp simd") != std::string::npos) {
        pragma = true;
      } else if (pragma) {
        const auto at = line.find("for (long ");
        lane = at == std::string::npos ? "" : line.substr(at + 10, line.find(' ', at + 10) - at - 10);
        pragma = false;
      } else if (!lane.empty() && line.find_first_not_of(" }") == std::string::npos) {
        lane.clear();  // the loop's end
      } else if (!lane.empty()) {
        for (auto at = line.find("(unsigned long)("); at != std::string::npos;
             at = line.find("(unsigned long)(", at + 1)) {
          const std::string check = line.substr(at, line.find(')', at + 16) - at);
          for (auto v = check.find(lane); v != std::string::npos; v = check.find(lane, v + 1))
            if (v + lane.size() == check.size() ||
                !(std::isalnum(check[v + lane.size()]) || check[v + lane.size()] == '_'))
              return line;
        }
      }
    }
    return std::string();
  };
  std::mt19937_64 rng(11);
  int along_columns = 0, in_place = 0;
  for (int i = 0; i < 400 && along_columns < 40; ++i) {
    const Config c = space->random_config(rng);
    const auto d = space->describe(c);
    in_place += c[0] == 1 && d["pack_I"] == 0;
    if (c[0] != 0) continue;  // 0: the columns
    EXPECT_NE(d["pack_I"], 0) << d.dump();
    std::optional<LoopNest> nest;
    try {
      nest = replay(op, space->trace(c));
    } catch (const Error&) {
      continue;  // refused by a transformation, with its reason (RandomConfigsReplay...)
    }
    CpuCodegenOptions o;
    o.vector_bits = 512;
    o.vector_registers = 32;
    EXPECT_EQ(checked_lanes(lower_cpu(*nest, o).source), "") << d.dump();
    ++along_columns;
  }
  EXPECT_GE(along_columns, 40);
  EXPECT_GT(in_place, 0);
  // The columns with the input read in place: refused.
  for (const auto& seed : space->seed_configs()) {
    if (seed[0] != 0) continue;
    Config c = seed;
    for (std::size_t k = 0; k < space->knobs().size(); ++k)
      if (space->knobs()[k].name == "pack_I") c[k] = 0;
    EXPECT_FALSE(space->admissible(c)) << space->describe(c).dump();
  }
}

// The seeds copy an input into its padded copy only where each element is read often enough
// to repay the copy: a dense convolution reads each input element once per output channel and
// tap (144 times here), a depthwise one 9 times (read in place: on dep_1 and dep_2 the copy
// made the fastest kernels 1.7x and 2.4x slower). Whether the copy pays on a dense convolution
// differs between shapes, so each padded seed is followed, after all of them, by its twin that
// reads in place where that is admissible (append_in_place_variants()).
TEST(CpuSpace, SeedsCopyOnlyInputsReadOftenEnough) {
  // pack_I of each seed, in order.
  auto pack_levels = [](const char* spec) {
    const Op op = op_from_cli(spec);
    const auto space = make_cpu_space(op, 2);
    std::vector<int> levels;
    for (const auto& c : space->seed_configs()) levels.push_back(space->describe(c)["pack_I"].get<int>());
    return levels;
  };
  // Padded first, then as many in place (every register tile reads the image outside it only
  // along rows the seeds do not vectorise).
  const std::vector<int> dense = pack_levels("conv2d:N=1,H=14,W=14,C=8,K=16,R=3,S=3,stride=1,pad=1,layout=NHWC");
  const auto first_in_place = std::find(dense.begin(), dense.end(), 0);
  ASSERT_NE(first_in_place, dense.end());
  EXPECT_TRUE(std::all_of(dense.begin(), first_in_place, [](int l) { return l == 4; }));
  EXPECT_TRUE(std::all_of(first_in_place, dense.end(), [](int l) { return l == 0; }));
  EXPECT_EQ(first_in_place - dense.begin(), dense.end() - first_in_place);
  const std::vector<int> depthwise =
      pack_levels("depthwise_conv2d:N=1,H=12,W=12,C=16,R=3,S=3,stride=1,pad=1,layout=NHWC");
  EXPECT_EQ(std::set<int>(depthwise.begin(), depthwise.end()), std::set<int>{0});
  // Along a padded NCHW convolution's columns the copy is the rule (admissible()); along its
  // output channels it is the seeds' choice, and pays, and its in-place twin follows.
  const std::vector<int> nchw = pack_levels(kSpecs[4]);
  EXPECT_EQ(std::set<int>(nchw.begin(), nchw.end()), (std::set<int>{0, 4}));
  EXPECT_EQ(nchw.front(), 4);
}

// Weights past 1 MiB read in place along the vector dimension (a transposed NHWC convolution's
// W[r, s, c, k]) get, before the other seeds, each swept seed's twin with the channels split so
// that one pass reads at most 1 MiB of them, hoisted above the tiles; packed or broadcast
// weights (an NCHW convolution's), and small ones, do not.
TEST(CpuSpace, LargeInPlaceWeightsGetReductionBlockedSeeds) {
  const auto space =
      make_cpu_space(op_from_cli("conv2d_transpose:N=1,H=8,W=8,C=256,K=128,R=4,S=4,stride=2,pad=1,layout=NHWC"), 2);
  const std::vector<Config> seeds = space->seed_configs();
  auto knob = [&](const Config& c, const char* name) { return space->describe(c)[name].get<int>(); };
  auto index_of = [&](const char* name) {
    const auto& ks = space->knobs();
    return static_cast<std::size_t>(std::find_if(ks.begin(), ks.end(), [&](const Knob& k) { return k.name == name; }) -
                                    ks.begin());
  };
  const auto blocked = [&](const Config& c) { return knob(c, "red_hoist") == 1 && knob(c, "red_split") != 0; };
  const auto first = std::find_if_not(seeds.begin(), seeds.end(), blocked);
  ASSERT_NE(first, seeds.begin());
  EXPECT_TRUE(std::none_of(first, seeds.end(), blocked)) << "put before every other seed";
  for (auto it = seeds.begin(); it != first; ++it) {
    EXPECT_EQ(knob(*it, "red_split"), 128) << "2 MiB of weights over 256 channels: 128 per pass";
    EXPECT_EQ(knob(*it, "outer_inside"), 1);
    EXPECT_EQ(knob(*it, "pack_W"), 0);
    Config twin = *it;  // the seed it was made from: the same but for the split
    twin[index_of("red_split")] = 0;
    twin[index_of("red_hoist")] = 0;
    EXPECT_NE(std::find(first, seeds.end(), twin), seeds.end());
  }
  for (const char* spec : {"conv2d:N=1,H=14,W=14,C=256,K=256,R=3,S=3,stride=1,pad=1,layout=NCHW",
                           "conv2d_transpose:N=1,H=8,W=8,C=64,K=32,R=4,S=4,stride=2,pad=1,layout=NHWC"}) {
    const auto other = make_cpu_space(op_from_cli(spec), 2);
    for (const Config& c : other->seed_configs()) EXPECT_EQ(other->describe(c)["red_hoist"].get<int>(), 0) << spec;
  }
}

// The seeds take their rows along the variable whose register tile loads least, then along the
// output's columns (CpuSpace::seed_row()). row_var indexes the spatial variables in output order,
// without the vector dimension and those of extent 1 (a vector dimension other than the natural
// one takes the natural one's place).
TEST(CpuSpace, SeedRowsLoadLeastThenFollowTheOutputsColumns) {
  auto seed_rows = [](const char* spec) {
    const Op op = op_from_cli(spec);
    const auto space = make_cpu_space(op, 2);
    std::set<std::pair<int, int>> rows;  // (vec_var, row_var)
    for (const auto& c : space->seed_configs()) {
      const auto d = space->describe(c);
      rows.insert({d["vec_var"].get<int>(), d["row_var"].get<int>()});
    }
    return rows;
  };
  using Rows = std::set<std::pair<int, int>>;
  // NHWC: only the image is read by either pixel variable, so the loads tie; rows along w
  // (index 1 of h, w) read neighbouring pixels.
  EXPECT_EQ(seed_rows("depthwise_conv2d:N=1,H=12,W=12,C=16,R=3,S=3,stride=1,pad=1,layout=NHWC"), (Rows{{0, 1}}));
  EXPECT_EQ(seed_rows("conv3d:N=1,D=4,H=6,W=6,C=4,K=8,T=1,R=1,S=1,layout=NDHWC"), (Rows{{0, 2}}));
  // Batched matmul along n: rows along b would load B's vectors once per row, along m they are
  // A's broadcasts (index 1 of b, m). Along m (vec_var 1): rows along n (index 1 of b, n).
  EXPECT_EQ(seed_rows("batch_matmul:B=12,M=16,N=16,K=8"), (Rows{{0, 1}, {1, 1}}));
  // NCHW along the columns (vec_var 0): rows along the output channels (index 0 of k, h), whose
  // weights are broadcast, not along h, whose image rows would be loaded per row and vector.
  // Along the output channels (vec_var 1): rows along w (index 0 of w, h), the output's columns.
  EXPECT_EQ(seed_rows(kSpecs[4]), (Rows{{0, 0}, {1, 0}}));
}

// Large operators get cache-blocked seeds first (NC x KC panels, the panel of B packed at the
// hoisted reduction); medium ones after the plain tiles; operators too small to block, none.
TEST(CpuSpace, LargeOperatorsAreSeededWithCacheBlocks) {
  auto blocked = [](const Space& space, const Config& c) {
    const auto d = space.describe(c);
    return d["red_hoist"] == 1 && d["red_split"] == 256 && d["vec_block"].get<int>() >= 256;
  };
  const Op big = op_from_cli("gemm:M=2048,N=2048,K=2048");
  const auto space = make_cpu_space(big, 2);
  const auto seeds = space->seed_configs();
  ASSERT_FALSE(seeds.empty());
  ASSERT_TRUE(blocked(*space, seeds.front())) << space->describe(seeds.front()).dump();
  const auto first = space->describe(seeds.front());
  EXPECT_EQ(first["pack_B"], 2);  // the panel, at the hoisted reduction
  EXPECT_EQ(first["parallel"], 1);
  for (const auto& c : seeds) EXPECT_NO_THROW(replay(big, space->trace(c))) << space->describe(c).dump();

  const Op medium = op_from_cli("gemm:M=128,N=768,K=768");
  const auto ms = make_cpu_space(medium, 1);
  const auto mseeds = ms->seed_configs();
  ASSERT_FALSE(mseeds.empty());
  EXPECT_FALSE(blocked(*ms, mseeds.front()));
  EXPECT_TRUE(std::any_of(mseeds.begin(), mseeds.end(), [&](const Config& c) { return blocked(*ms, c); }));

  const Op small = op_from_cli("gemm:M=64,N=48,K=40");
  const auto ss = make_cpu_space(small, 1);
  for (const auto& c : ss->seed_configs()) EXPECT_FALSE(blocked(*ss, c));

  // ResNet-50's last NCHW layer: blocks of the output channels (512), never of w (7); the
  // weights packed once (rows h around the blocks would repack a panel per row), 7-row tiles.
  const Op conv = op_from_cli("conv2d:N=1,H=7,W=7,C=512,K=512,R=3,S=3,stride=1,pad=1,layout=NCHW");
  const auto cs = make_cpu_space(conv, 1);
  int over_k = 0;
  for (const auto& c : cs->seed_configs()) {
    if (!blocked(*cs, c)) continue;
    const auto d = cs->describe(c);
    EXPECT_EQ(c[0], 1) << d.dump();
    EXPECT_EQ(d["pack_W"], 3) << d.dump();
    EXPECT_EQ(d["row_tile"], 7) << d.dump();
    EXPECT_NO_THROW(replay(conv, cs->trace(c))) << d.dump();
    ++over_k;
  }
  EXPECT_GT(over_k, 0);
}

TEST(CpuSpace, ReadsVersion2RecordsWithTheNaturalVector) {
  const Op op = op_from_cli("gemm:M=64,N=48,K=40");
  const auto space = make_cpu_space(op, 2);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20; ++i) {
    Config c = space->random_config(rng);
    c[0] = 0;
    nlohmann::json old = space->describe(c);
    old.erase("vec_var");  // version 2 had no such knob
    const auto got = space->config_from_record({{"space", "cpu-v2"}, {"knobs", old}});
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, c);
  }
  EXPECT_FALSE(
      space->config_from_record({{"space", "cpu-v1"}, {"knobs", space->describe(Config(space->knobs().size(), 0))}})
          .has_value());
}

// Records are read by knob name and value, never by position: a name or a value the space does
// not have means "not one of ours".
TEST(CpuSpace, ReadsRecordsByKnobNameNotPosition) {
  const Op op = op_from_cli("gemm:M=64,N=48,K=40");
  const auto space = make_cpu_space(op, 2);
  std::mt19937_64 rng(9);
  for (int i = 0; i < 20; ++i) {
    const Config c = space->random_config(rng);
    const nlohmann::json knobs = space->describe(c);
    // A positional "config" that disagrees is ignored: only the names count.
    const auto got = space->config_from_record({{"space", space->version()}, {"config", Config{}}, {"knobs", knobs}});
    ASSERT_TRUE(got.has_value()) << knobs.dump();
    EXPECT_EQ(*got, c);
    nlohmann::json unknown = knobs;
    unknown["no_such_knob"] = 1;
    EXPECT_FALSE(space->config_from_record({{"space", space->version()}, {"knobs", unknown}}).has_value());
    nlohmann::json off = knobs;
    off["row_tile"] = 1000003;
    EXPECT_FALSE(space->config_from_record({{"space", space->version()}, {"knobs", off}}).has_value());
  }
}

// A transposed convolution's rows are read through a division by the stride: the space offers
// to split their phase off (last knob, so other ops' configs are unchanged), seeds that first,
// and reads back records written before the knob existed as phase 0.
TEST(CpuSpace, TransposedConvolutionRowsHaveAStridePhase) {
  const Op t2d = op_from_cli("conv2d_transpose:N=1,H=4,W=4,C=8,K=16,R=4,S=4,stride=2,pad=1,layout=NHWC");
  const auto space = make_cpu_space(t2d, 2);
  const auto& knobs = space->knobs();
  std::size_t ph = knobs.size();
  for (std::size_t i = 0; i < knobs.size(); ++i)
    if (knobs[i].name == "row_phase") ph = i;
  ASSERT_LT(ph, knobs.size());
  const auto seeds = space->seed_configs();
  ASSERT_FALSE(seeds.empty());
  EXPECT_EQ(seeds.front()[ph], 1) << "phased seeds should come first";
  for (const auto& c : seeds) {
    if (c[ph] != 1) continue;
    const Trace t = space->trace(c);
    const auto rows = space->describe(c)["row_var"].get<int>() == 0 ? "p" : "q";
    bool phase_split = false;
    for (const auto& st : t.steps)
      phase_split = phase_split || (st.kind == TransformKind::split && st.loop == rows &&
                                    st.factors == std::vector<std::int64_t>{4, 2});
    EXPECT_TRUE(phase_split) << trace_to_string(t);
    EXPECT_NO_THROW(replay(t2d, t)) << trace_to_string(t);
  }
  Config c = seeds.front();
  nlohmann::json old = space->describe(c);
  for (std::size_t k = ph; k < knobs.size(); ++k) old.erase(knobs[k].name);  // written before the optional knobs
  const auto got = space->config_from_record({{"space", space->version()}, {"knobs", old}});
  ASSERT_TRUE(got.has_value());
  std::fill(c.begin() + static_cast<std::ptrdiff_t>(ph), c.end(), 0);
  EXPECT_EQ(*got, c);

  for (const char* spec : {"gemm:M=64,N=48,K=40", "conv2d:N=1,H=14,W=14,C=8,K=16,R=3,S=3,stride=2,pad=1,layout=NHWC"}) {
    const auto other = make_cpu_space(op_from_cli(spec), 2);
    for (const auto& k : other->knobs()) EXPECT_NE(k.name, "row_phase") << spec;
  }
}

// Where spatial loops surround the tiles, outer_inside moves them inside the vector tile loop,
// and operators whose weights pass 1 MiB are seeded that way first (ResNet's c5: 9 MiB).
TEST(CpuSpace, LargeWeightsAreSweptPanelByPanel) {
  const Op c5 = op_from_cli("conv2d:N=1,H=7,W=7,C=512,K=512,R=3,S=3,stride=1,pad=1,layout=NCHW");
  const auto space = make_cpu_space(c5, 2);
  const auto seeds = space->seed_configs();
  ASSERT_FALSE(seeds.empty());
  EXPECT_EQ(space->describe(seeds.front()).value("outer_inside", -1), 1);
  const auto over_k = std::find_if(seeds.begin(), seeds.end(), [&](const Config& c) {
    const auto d = space->describe(c);
    return d.value("outer_inside", 0) == 1 && d["vec_var"] == 1;
  });
  ASSERT_NE(over_k, seeds.end()) << "no seed over the output channels sweeps the weights";
  const Trace t = space->trace(*over_k);
  std::vector<std::string> order;
  for (const auto& st : t.steps)
    if (st.kind == TransformKind::reorder) order = st.loops;
  const auto at = [&](const std::string& v) { return std::find(order.begin(), order.end(), v) - order.begin(); };
  EXPECT_LT(at("k.0"), at("p")) << trace_to_string(t);
  EXPECT_LT(at("p"), static_cast<std::ptrdiff_t>(order.size())) << trace_to_string(t);
  EXPECT_NO_THROW(replay(c5, t));

  const auto small =
      make_cpu_space(op_from_cli("conv2d:N=1,H=56,W=56,C=64,K=64,R=3,S=3,stride=1,pad=1,layout=NCHW"), 2);
  EXPECT_EQ(small->describe(small->seed_configs().front()).value("outer_inside", 0), 0) << "147 KiB of weights fit L2";
  const auto gemm = make_cpu_space(op_from_cli("gemm:M=64,N=48,K=40"), 2);
  for (const auto& k : gemm->knobs()) EXPECT_NE(k.name, "outer_inside");
}

TEST(CpuSpace, DescribeNamesEveryKnob) {
  const Op op = op_from_cli("gemm:M=64,N=48,K=40");
  const auto space = make_cpu_space(op, 2);
  std::mt19937_64 rng(1);
  const auto j = space->describe(space->random_config(rng));
  for (const auto& k : space->knobs()) EXPECT_TRUE(j.contains(k.name)) << k.name;
}

TEST(Strategies, ProposeFreshConfigsReproducibly) {
  const Op op = op_from_cli("gemm:M=64,N=48,K=40");
  const auto space = make_cpu_space(op, 2);
  for (const auto& name : strategy_names()) {
    if (name == "predict") continue;  // zero-shot proposes from a model of other tasks (transfer_test.cpp)
    std::vector<Trial> history;
    std::mt19937_64 rng(9);
    for (int round = 0; round < 5; ++round) {
      auto s = make_strategy(name);
      const auto batch = s->propose(*space, history, 8, rng);
      // A two-level strategy with no model yet proposes only what it would measure.
      if (s->proposal_factor(*space) > 1) {
        EXPECT_GE(batch.size(), 1u) << name;
        EXPECT_LE(batch.size(), 8u) << name;
      } else {
        EXPECT_EQ(batch.size(), 8u) << name;
      }
      std::set<Config> seen;
      for (const auto& t : history) seen.insert(t.config);
      for (const auto& c : batch) {
        EXPECT_FALSE(seen.count(c)) << name << " proposed a config twice";
        history.push_back({c, Status::ok, 1e-3 * static_cast<double>(c[0] + 1), nullptr});
      }
    }
    // Same seed, same history: same proposals.
    std::mt19937_64 r1(5), r2(5);
    EXPECT_EQ(make_strategy(name)->propose(*space, history, 6, r1),
              make_strategy(name)->propose(*space, history, 6, r2));
  }
}

// At 512 bits the vector tiles are whole 16-lane vectors and a register tile may hold up to 28
// accumulators (AVX-512 has 32 registers): 14 rows of two vectors fit, 8 rows of four do not;
// the seeds include the 12x2 and 6x4 tiles (rows x vectors) and every seed replays. Other
// widths are refused with a message.
TEST(CpuSpace, Avx512TilesFillThirtyTwoRegisters) {
  const Op op = op_from_cli("gemm:M=96,N=1024,K=600");
  const auto space = make_cpu_space(op, 2, cpu_vector_registers(load_target("x86-avx512")));
  const auto& knobs = space->knobs();
  auto at = [&](const std::string& name) {
    for (std::size_t i = 0; i < knobs.size(); ++i)
      if (knobs[i].name == name) return i;
    ADD_FAILURE() << "no knob " << name;
    return std::size_t{0};
  };
  EXPECT_EQ(knobs[at("vec_tile")].choices, (std::vector<std::int64_t>{16, 32, 48, 64}));
  auto with = [&](std::int64_t lanes, std::int64_t rows) {
    Config c(knobs.size(), 0);
    const auto& vt = knobs[at("vec_tile")].choices;
    const auto& rt = knobs[at("row_tile")].choices;
    c[at("vec_tile")] = static_cast<int>(std::find(vt.begin(), vt.end(), lanes) - vt.begin());
    c[at("row_tile")] = static_cast<int>(std::find(rt.begin(), rt.end(), rows) - rt.begin());
    return c;
  };
  EXPECT_TRUE(space->admissible(with(32, 14)));
  EXPECT_TRUE(space->admissible(with(64, 7)));
  EXPECT_FALSE(space->admissible(with(64, 8)));
  std::set<std::pair<std::int64_t, std::int64_t>> tiles;
  for (const auto& c : space->seed_configs()) {
    const auto d = space->describe(c);
    tiles.insert({d["row_tile"].get<std::int64_t>(), d["vec_tile"].get<std::int64_t>()});
    EXPECT_NO_THROW(replay(op, space->trace(c))) << d.dump();
  }
  EXPECT_TRUE(tiles.count({12, 32}));
  EXPECT_TRUE(tiles.count({6, 64}));
  // The AVX2 space of the same op keeps its 8-lane tiles and 14 accumulators.
  const auto avx2 = make_cpu_space(op, 2);
  EXPECT_EQ(avx2->knobs()[at("vec_tile")].choices, (std::vector<std::int64_t>{8, 16, 24, 32}));
  try {
    make_cpu_space(op, 2, VectorRegisters{4, 16});
    FAIL() << "128-bit vectors accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected 8 (AVX2) or 16 (AVX-512)"), std::string::npos) << e.what();
  }
}

TEST(Strategies, UnknownNameListsTheKnownOnes) {
  try {
    make_strategy("annealing");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "unknown strategy 'annealing' (known: random, evolutionary, xgb, ml2, predict)");
  }
}

}  // namespace
}  // namespace attune
