// Transformations: each kind's refusals (exact reasons), purity, JSON round trip and replay.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "ir/error.hpp"
#include "schedule/actions.hpp"
#include "schedule/schedule.hpp"
#include "schedule/transform.hpp"

namespace attune {
namespace {

Op gemm() { return op_from_cli("gemm:M=12,N=16,K=10"); }

std::string refusal(const LoopNest& nest, const Transform& t) {
  const auto a = applicable(nest, t);
  return a ? "applicable" : a.reason;
}

TEST(Refusals, Split) {
  const LoopNest n = initial_nest(gemm());
  EXPECT_EQ(refusal(n, Transform::split("x", {2, 2})), "no loop named 'x'");
  EXPECT_EQ(refusal(n, Transform::split("m", {12})), "split needs at least two factors");
  EXPECT_EQ(refusal(n, Transform::split("m", {3, 0})), "split factors must be in 1..2^40");
  // Bounded so that no product of factors overflows (a trace may come from anywhere).
  EXPECT_EQ(refusal(n, Transform::split("m", {1, std::int64_t{1} << 41})), "split factors must be in 1..2^40");
  EXPECT_EQ(refusal(n, Transform::split("m", {1, std::int64_t{1} << 30, 1 << 11})),
            "the inner split factors of 'm' multiply to more than 2^40");
  EXPECT_EQ(refusal(n, Transform::split("m", {1, std::int64_t{1} << 40})), "applicable");
  EXPECT_EQ(refusal(n, Transform::split("m", {2, 5})),
            "outer factor of 'm' must be 3 (extent 12 / inner 5, rounded up)");
  EXPECT_EQ(refusal(n, Transform::split("m", {3, 5})), "applicable");
  const LoopNest p = apply(n, Transform::parallel("m"));
  EXPECT_EQ(refusal(p, Transform::split("m", {3, 4})), "loop 'm' is parallel; split before annotating");
}

// Unrolling is judged by what the compiler will see: gcc peels the short window loops inside
// each copy, and the code generator prints a padded region three times per boundary. 64 x 8
// unrolled copies of a 3x3 window took gcc over two minutes.
TEST(Refusals, UnrollCountsWhatTheCompilerSees) {
  const LoopNest n = initial_nest(op_from_cli("conv2d:N=1,H=7,W=7,C=512,K=512,R=3,S=3,stride=1,pad=1"));
  LoopNest s = apply(n, Transform::split("c", {64, 8}));
  s = apply(s, Transform::unroll("c.1"));  // 8 x 9 statements, 9 boundary copies: fine
  EXPECT_EQ(refusal(s, Transform::unroll("c.0")),
            "unrolling 'c.0' would hand the compiler about 41472 statements (64 copies of a body it expands to 72, "
            "printed 9 times for the boundary; limit 8192)");
  // Without padding the same nest is printed once: 4608 statements are fine.
  const LoopNest u = initial_nest(op_from_cli("conv2d:N=1,H=7,W=7,C=512,K=512,R=3,S=3,stride=1,pad=0"));
  LoopNest v = apply(u, Transform::split("c", {64, 8}));
  v = apply(v, Transform::unroll("c.1"));
  EXPECT_EQ(refusal(v, Transform::unroll("c.0")), "applicable");
  // A vectorized inner loop is one statement per copy, whatever its extent; a long serial loop
  // stays a loop.
  const LoopNest g = initial_nest(op_from_cli("gemm:M=64,N=64,K=64"));
  LoopNest t = apply(g, Transform::split("n", {4, 16}));
  t = apply(t, Transform::reorder({"m", "k", "n.0", "n.1"}));
  t = apply(t, Transform::vectorize("n.1"));
  EXPECT_EQ(refusal(t, Transform::unroll("n.0")), "applicable");
}

// The limit holds after later steps too: a pack placed inside an unrolled loop is copied with it
// (random traces that did so took gcc 49-71 s), and a parallel loop there would be one parallel
// region per copy.
TEST(Refusals, LaterStepsKeepUnrolledCodeBounded) {
  const LoopNest n = initial_nest(op_from_cli("conv2d:N=1,H=7,W=7,C=512,K=512,R=3,S=3,stride=1,pad=1"));
  LoopNest s = apply(n, Transform::split("c", {8, 64}));
  s = apply(s, Transform::unroll("c.1"));  // 64 copies of the 3x3 window, 9 boundary copies: 5184
  EXPECT_EQ(refusal(s, Transform::pack("W", "r")),
            "unrolled loop 'c.1' would then hand the compiler about 10368 statements (64 copies of a body it "
            "expands to 18, printed 9 times for the boundary; limit 8192)");
  EXPECT_THROW(replay(op_from_cli("conv2d:N=1,H=7,W=7,C=512,K=512,R=3,S=3,stride=1,pad=1"),
                      Trace{{Transform::split("c", {8, 64}), Transform::unroll("c.1"), Transform::pack("W", "r")}}),
               Error);
  // Outside the unrolled loop the same pack adds nothing to it.
  EXPECT_EQ(refusal(s, Transform::pack("W", "c.0")), "applicable");
  const LoopNest m = apply(initial_nest(op_from_cli("gemm:M=12,N=16,K=10")), Transform::unroll("m"));
  EXPECT_EQ(refusal(m, Transform::parallel("n")), "loop 'n' is inside unroll loop 'm'");
}

// Traces may come from anywhere: no numbers they hold may overflow what the transformations
// compute (fuzz/corpus/trace_replay/regression-*).
TEST(Refusals, NumbersThatWouldOverflow) {
  LoopNest n = initial_nest(gemm());
  n = apply(n, Transform::split("m", {1, std::int64_t{1} << 40}));
  n = apply(n, Transform::split("n", {1, std::int64_t{1} << 40}));
  // Sizes are computed saturating, then refused by their limits.
  EXPECT_EQ(refusal(n, Transform::cache_write("C", "m.0")), "local buffer would hold more than 1048576 elements");
  EXPECT_EQ(refusal(n, Transform::pack("B", "m.0")), "packed buffer would hold more than 16777216 elements");
  n = apply(n, Transform::fuse("m.1"));  // m.1 (2^40) with n.0 (1)
  EXPECT_EQ(refusal(n, Transform::fuse("m.1_n.0")),
            "fusing 'm.1_n.0' and 'n.1' would make a loop of more than 2^40 iterations");
  // A split multiplies the loop variable's coefficients by its inner factors.
  const LoopNest strided = initial_nest(parse_spec("tensor A[64] f32; tensor O[32] f32; O[i] += A[2*i]"));
  EXPECT_EQ(refusal(strided, Transform::split("i", {1, std::int64_t{1} << 40})),
            "splitting 'i' by 1099511627776 would make an index coefficient beyond 2^40");
  EXPECT_EQ(refusal(strided, Transform::split("i", {1, std::int64_t{1} << 39})), "applicable");
}

TEST(Refusals, ParallelAndVectorizeRefuseAReduction) {
  const LoopNest n = initial_nest(gemm());
  EXPECT_EQ(refusal(n, Transform::parallel("k")),
            "loop 'k' carries a dependence: every iteration accumulates into C[m, n] (a reduction)");
  EXPECT_EQ(refusal(n, Transform::vectorize("m")), "loop 'm' is not innermost");
  const LoopNest r = apply(n, Transform::reorder({"m", "k", "n"}));
  EXPECT_EQ(refusal(r, Transform::vectorize("n")), "applicable");
  EXPECT_EQ(refusal(apply(n, Transform::reorder({"n", "k"})), Transform::vectorize("k")),
            "loop 'k' carries a dependence: every iteration accumulates into C[m, n] (a reduction)");
  const LoopNest p = apply(n, Transform::parallel("m"));
  EXPECT_EQ(refusal(p, Transform::parallel("n")), "loop 'n' is inside parallel loop 'm'");
  EXPECT_EQ(refusal(p, Transform::parallel("m")), "loop 'm' is already parallel");
}

TEST(Refusals, ReorderNeedsAPerfectChain) {
  const LoopNest n = initial_nest(gemm());
  EXPECT_EQ(refusal(n, Transform::reorder({"m"})), "reorder needs at least two loops");
  EXPECT_EQ(refusal(n, Transform::reorder({"m", "m"})), "loop 'm' named twice");
  EXPECT_EQ(refusal(n, Transform::reorder({"m", "k"})), "loops are not adjacent: 'n' lies between them");
  const LoopNest c = apply(n, Transform::cache_write("C", "m"));
  EXPECT_EQ(refusal(c, Transform::reorder({"n", "m"})), "loops are not perfectly nested: 'm' holds more than one loop");
  EXPECT_EQ(refusal(n, Transform::reorder({"k", "n", "m"})), "applicable");
}

TEST(Refusals, UnrollFuse) {
  const LoopNest n = initial_nest(op_from_cli("gemm:M=100,N=8,K=4"));
  EXPECT_EQ(refusal(n, Transform::unroll("m")), "loop 'm' has extent 100 > 64; split it first");
  EXPECT_EQ(refusal(n, Transform::fuse("k")), "loop 'k' does not hold exactly one loop");
  EXPECT_EQ(refusal(n, Transform::fuse("m")), "applicable");
  EXPECT_EQ(refusal(apply(n, Transform::unroll("n")), Transform::fuse("m")), "loop 'n' is unroll");
}

TEST(Refusals, PackAndCacheWrite) {
  const LoopNest n = initial_nest(gemm());
  EXPECT_EQ(refusal(n, Transform::pack("Z", "m")), "no tensor named 'Z'");
  EXPECT_EQ(refusal(n, Transform::pack("C", "m")), "'C' is the output; use cache_write");
  EXPECT_EQ(refusal(n, Transform::pack("A", "q")), "no loop named 'q'");
  EXPECT_EQ(refusal(n, Transform::pack("A", "m", {"n"})), "layout must be a permutation of the loops the read uses: k");
  EXPECT_EQ(refusal(n, Transform::pack("A", "init.m")), "'A' is not read below 'init.m'");
  EXPECT_EQ(refusal(n, Transform::pack("B", "root", {"n", "k"})), "applicable");
  EXPECT_EQ(refusal(n, Transform::cache_write("A", "m")), "'A' is not the output of the op (C)");
  EXPECT_EQ(refusal(n, Transform::cache_write("C", "init.m")), "'init.m' holds no update of 'C'");
  const LoopNest c = apply(n, Transform::cache_write("C", "n"));
  EXPECT_EQ(refusal(c, Transform::cache_write("C", "m")), "the output is already cached below 'm' (in 'C_l')");
}

TEST(Apply, IsPureAndThrowsWithTheReason) {
  const LoopNest n = initial_nest(gemm());
  const LoopNest copy = n;
  const LoopNest s = apply(n, Transform::split("m", {3, 4}));
  EXPECT_EQ(n, copy);
  EXPECT_NE(s, n);
  EXPECT_NE(s.find_loop("m.1"), nullptr);
  try {
    apply(n, Transform::parallel("k"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "parallel(k) is not applicable: loop 'k' carries a dependence: every iteration "
              "accumulates into C[m, n] (a reduction)");
  }
}

TEST(Apply, CacheWriteOverEveryReductionRemovesTheInitAndFoldsTheEpilogue) {
  const Op op = op_from_cli("gemm:M=4,N=8,K=3,epilogue=bias_relu");
  const LoopNest n = initial_nest(op);
  EXPECT_EQ(n.body.size(), 3u);  // init, update, epilogue
  const LoopNest c = apply(n, Transform::cache_write("C", "m"));
  EXPECT_EQ(c.body.size(), 1u);
  EXPECT_NE(c.str().find("relu("), std::string::npos);
  // Below a reduction loop the write-back accumulates and the other nests stay.
  const LoopNest r = apply(apply(n, Transform::reorder({"m", "k", "n"})), Transform::cache_write("C", "k"));
  EXPECT_EQ(r.body.size(), 3u);
  EXPECT_NE(r.str().find("C[m, n@C_l.back] += C_l[n@C_l.back]"), std::string::npos) << r.str();
}

TEST(Trace, EveryKindRoundTripsThroughJsonAndReplays) {
  const Op op = op_from_cli("gemm:M=12,N=16,K=10");
  Trace t;
  t.steps = {Transform::split("n", {2, 8}),      Transform::reorder({"m", "n.0", "k", "n.1"}),
             Transform::fuse("init.m"),          Transform::parallel("init.m_init.n"),
             Transform::cache_write("C", "n.0"), Transform::pack("B", "m", {"n.0", "k", "n.1"}),
             Transform::vectorize("n.1"),        Transform::unroll("n.1@C_l.init")};
  // The two kinds of multi-stage ops, on one.
  const Op ln = op_from_cli("layernorm:M=4,N=8");
  Trace s;
  s.steps = {Transform::compute_at("Var", "s2.m"), Transform::compute_at("Mu", "s2.m")};
  const Op att = op_from_cli("attention:H=2,T=4,D=3");
  Trace a;
  a.steps = {Transform::compute_inline("E")};
  std::set<TransformKind> kinds;
  for (const auto* tr : {&t, &s, &a})
    for (const auto& step : tr->steps) kinds.insert(step.kind);
  EXPECT_EQ(kinds.size(), all_transform_kinds().size()) << "cover every kind";
  for (const auto& [o, tr] : {std::pair{&op, &t}, std::pair{&ln, &s}, std::pair{&att, &a}}) {
    const std::string text = trace_to_string(*tr);
    EXPECT_EQ(trace_from_string(text), *tr);
    EXPECT_EQ(nlohmann::json::parse(text)["schema_version"], kScheduleSchemaVersion);
    EXPECT_EQ(replay(*o, trace_from_string(text)), replay(*o, *tr));
  }
}

// A padded pack keeps the tensor's dimensions, widened by the halo its reads reach.
TEST(Refusals, PaddedPack) {
  const Op op = op_from_cli("conv2d:N=1,H=6,W=5,C=3,K=4,R=3,S=3,pad=1,layout=NCHW");
  const LoopNest n = initial_nest(op);
  Transform at_loop = Transform::pack("I", "k");
  at_loop.padded = true;
  EXPECT_EQ(refusal(n, at_loop), "a padded pack covers the whole function: at must be 'root'");
  Transform with_layout = Transform::pack_padded("I");
  with_layout.layout = {"c"};
  EXPECT_EQ(refusal(n, with_layout), "a padded pack keeps the tensor's layout: give no layout");
  const Transform t = Transform::pack_padded("I");
  EXPECT_EQ(t.str(), "pack(I, at root, padded)");
  const LoopNest p = apply(n, t);
  const auto* buf = p.buffer("I_p");
  ASSERT_NE(buf, nullptr);
  EXPECT_EQ(buf->shape, (std::vector<std::int64_t>{1, 3, 8, 7}));
  Trace tr;
  tr.steps = {t};
  EXPECT_NE(trace_to_string(tr).find("\"padded\":true"), std::string::npos);
  EXPECT_EQ(trace_from_string(trace_to_string(tr)), tr);
  // Without the flag the JSON has no "padded" field, so older traces keep their text.
  tr.steps = {Transform::pack("I", "root")};
  EXPECT_EQ(trace_to_string(tr).find("padded"), std::string::npos);
}

TEST(Trace, BadJsonGivesOneLineErrors) {
  EXPECT_THROW(trace_from_string("{"), Error);
  try {
    trace_from_string(R"({"schema_version": 1, "steps": [{"kind": "split", "loop": "m"}]})");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "trace: steps[0]: transformation 'split': missing field 'factors'");
  }
  try {
    trace_from_string(R"({"schema_version": 7, "steps": []})");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "trace: schema_version 7 is not supported (expected 1)");
  }
  try {
    replay(op_from_cli("gemm:M=4,N=4,K=4"),
           trace_from_string(R"({"schema_version": 1, "steps": [{"kind": "unroll", "loop": "z"}]})"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "trace step 0 unroll(z) is not applicable: no loop named 'z'");
  }
}

// Random legal traces: every listed action is applicable, every replay reproduces the nest.
TEST(Actions, RandomTracesAreLegalAndReplayIdentically) {
  std::mt19937_64 rng(17);
  for (const char* spec : {"gemm:M=12,N=16,K=10", "conv2d:N=1,H=6,W=6,C=3,K=4,R=3,S=3,pad=1,stride=2",
                           "conv2d_transpose:N=1,H=3,W=3,C=2,K=4,R=4,S=4,stride=2,pad=1"}) {
    const Op op = op_from_cli(spec);
    for (int i = 0; i < 40; ++i) {
      const Trace t = random_trace(op, rng, 10);
      const LoopNest a = replay(op, t);
      EXPECT_EQ(replay(op, trace_from_string(trace_to_string(t))), a);
      for (const auto& act : legal_actions(a)) EXPECT_TRUE(applicable(a, act)) << act.str();
    }
  }
}

}  // namespace
}  // namespace attune
