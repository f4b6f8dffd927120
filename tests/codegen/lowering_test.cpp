// The CPU backend's lowering passes (codegen/lowering.hpp), each on a nest built to need it and
// on one that must be left alone, and the printer following what they decided.
#include <gtest/gtest.h>

#include <functional>

#include "codegen/codegen_cpu.hpp"
#include "codegen/lowering.hpp"
#include "schedule/transform.hpp"

namespace attune {
namespace {

LoopNest scheduled(const std::string& spec, const std::vector<Transform>& steps) {
  LoopNest n = initial_nest(op_from_cli(spec));
  for (const auto& t : steps) n = apply(n, t);
  return n;
}

// Every loop of `nest` named `var` (a split loop appears once per copy).
std::vector<const Node*> loops_named(const LoopNest& nest, const std::string& var) {
  std::vector<const Node*> out;
  std::function<void(const std::vector<Node>&)> walk = [&](const std::vector<Node>& ns) {
    for (const auto& n : ns) {
      if (!n.is_loop()) continue;
      if (n.var == var) out.push_back(&n);
      walk(n.body);
    }
  };
  walk(nest.body);
  return out;
}

// A 6x16 register tile of a 100x64 GEMM: rows in tiles of 6 (a tail), columns by 16.
LoopNest micro_kernel(bool parallel_rows) {
  std::vector<Transform> steps = {Transform::split("m", {17, 6}), Transform::split("n", {4, 16}),
                                  Transform::reorder({"m.0", "n.0", "k", "m.1", "n.1"}),
                                  Transform::cache_write("C", "n.0"), Transform::unroll("m.1"),
                                  Transform::vectorize("n.1"),
                                  // The tile's zeroing and write-back loops, unrolled and vectorized too.
                                  Transform::unroll("m.1@C_l.init"), Transform::vectorize("n.1@C_l.init"),
                                  Transform::unroll("m.1@C_l.back"), Transform::vectorize("n.1@C_l.back")};
  if (parallel_rows) steps.push_back(Transform::parallel("m.0"));
  return scheduled("gemm:M=100,N=64,K=32", steps);
}

const BufferDecl& only_local(const LoopNest& n) {
  for (const auto& b : n.buffers)
    if (b.kind == BufferKind::local) return b;
  throw std::runtime_error("no local buffer");
}

TEST(MarkVectorLoops, ContiguousLoopOfWholeVectorsBecomesVectorCode) {
  const LoopNest n = mark_vector_loops(micro_kernel(false), 8);
  const auto v = loops_named(n, "n.1");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0]->lowering.vector_code);
  // 16 lanes: still whole vectors; 12 columns at 8 lanes: not.
  EXPECT_TRUE(loops_named(mark_vector_loops(micro_kernel(false), 16), "n.1")[0]->lowering.vector_code);
  const LoopNest odd =
      mark_vector_loops(scheduled("gemm:M=4,N=12,K=3", {Transform::reorder({"k", "n"}), Transform::vectorize("n")}), 8);
  EXPECT_FALSE(loops_named(odd, "n")[0]->lowering.vector_code);
  EXPECT_NE(lower_cpu(odd).source.find("#pragma omp simd"), std::string::npos);
}

TEST(MarkVectorLoops, StridedWriteBackIsAScatter) {
  // NCHW: the accumulators run over k, which is not O's last dimension.
  LoopNest n = scheduled("conv2d:N=1,H=8,W=8,C=4,K=16,R=3,S=3,stride=1,pad=1,layout=NCHW",
                         {Transform::reorder({"p", "q", "c", "r", "s", "k"}), Transform::cache_write("O", "q"),
                          Transform::vectorize("k@O_l.back")});
  n = mark_vector_loops(n, 8);
  const auto back = loops_named(n, "k@O_l.back");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(back[0]->lowering.vector_code);
  EXPECT_TRUE(back[0]->body.at(0).stmt.scatter);
}

TEST(PromoteRegisters, ARegisterTileWithinTheBudgetLivesInRegisters) {
  const LoopNest marked = mark_vector_loops(micro_kernel(false), 8);
  EXPECT_TRUE(only_local(promote_registers(marked, 8, 16)).in_registers);  // 12 vectors <= 14
  EXPECT_FALSE(only_local(promote_registers(marked, 8, 8)).in_registers);  // > the budget of 8 registers
  // Without vector code (the passes' order matters) nothing is promoted.
  EXPECT_FALSE(only_local(promote_registers(micro_kernel(false), 8, 16)).in_registers);
  // The printer declares the registers and never the array.
  const std::string c = lower_cpu(micro_kernel(false)).source;
  EXPECT_NE(c.find("C_l in registers"), std::string::npos);
  EXPECT_EQ(c.find("float C_l["), std::string::npos);
}

TEST(PromoteRegisters, ABufferIndexedByARolledLoopStaysInMemory) {
  // m.1 rolled: the tile's row index is not a constant.
  const LoopNest n =
      scheduled("gemm:M=100,N=64,K=32", {Transform::split("m", {17, 6}), Transform::split("n", {4, 16}),
                                         Transform::reorder({"m.0", "n.0", "k", "m.1", "n.1"}),
                                         Transform::cache_write("C", "n.0"), Transform::vectorize("n.1")});
  EXPECT_FALSE(only_local(lower_cpu_nest(n, {})).in_registers);
}

TEST(StepPhases, TheTapsOfAStridedTransposedConvolutionStepByTheStride) {
  const LoopNest n = step_phases(
      initial_nest(op_from_cli("conv2d_transpose:N=1,H=8,W=8,C=16,K=16,R=4,S=4,stride=2,pad=1,layout=NHWC")));
  for (const char* taps : {"r", "s"}) {
    const auto l = loops_named(n, taps);
    ASSERT_EQ(l.size(), 1u);
    ASSERT_TRUE(l[0]->lowering.phase) << taps;
    EXPECT_EQ(l[0]->lowering.phase->divisor, 2);
  }
  // The zeroing nest writes every element: none of its loops is stepped, nor the channels.
  for (const char* v : {"init.p", "init.k", "c", "p"}) EXPECT_FALSE(loops_named(n, v).at(0)->lowering.phase) << v;
  const std::string c = lower_cpu(n).source;
  EXPECT_NE(c.find("one residue class of a strided read"), std::string::npos);
}

TEST(StepPhases, ALoopAboveACopyIsNeverStepped) {
  // The pack's copy must write its zeros; its loops sit inside q, above the taps.
  const LoopNest n = step_phases(scheduled("conv2d_transpose:N=1,H=8,W=8,C=16,K=16,R=4,S=4,stride=2,pad=1,layout=NHWC",
                                           {Transform::pack("W", "q")}));
  EXPECT_FALSE(loops_named(n, "q").at(0)->lowering.phase);
  EXPECT_TRUE(loops_named(n, "r").at(0)->lowering.phase);
}

TEST(SplitTails, ATileLoopWithATailBecomesItsWholeTilesThenTheTail) {
  const LoopNest n = lower_cpu_nest(micro_kernel(true), {});
  const auto parts = loops_named(n, "m.0");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0]->lowering.begin, 0);
  EXPECT_EQ(parts[0]->lowering.end, 16);  // 16 x 6 = 96 rows <= 100
  EXPECT_EQ(parts[1]->lowering.begin, 16);
  EXPECT_EQ(parts[1]->lowering.end, -1);
  EXPECT_EQ(parts[0]->kind, LoopKind::parallel);
  EXPECT_EQ(parts[1]->kind, LoopKind::serial);  // a one-tile tail runs on one thread
  const std::string c = lower_cpu(micro_kernel(true)).source;
  EXPECT_NE(c.find("m.0 < 16: whole tiles, no bounds checks"), std::string::npos);
  EXPECT_NE(c.find("m.0 >= 16: the tail"), std::string::npos);
}

TEST(SplitTails, LoopsThatNeedNoChecksAreLeftWhole) {
  const LoopNest n = lower_cpu_nest(scheduled("gemm:M=96,N=64,K=32", {Transform::split("m", {16, 6})}), {});
  EXPECT_EQ(loops_named(n, "m.0").size(), 1u);
  EXPECT_FALSE(loops_named(n, "m.0")[0]->lowering.split_part);
}

TEST(SplitTails, AnUnrolledLoopAboveARolledOneIsSplitPerCopy) {
  // q unrolled over a rolled loop: each copy is analysed at its constant (the halo differs).
  const LoopNest n = lower_cpu_nest(
      scheduled("conv2d:N=1,H=6,W=6,C=8,K=8,R=3,S=3,stride=1,pad=1,groups=2,layout=NHWC", {Transform::unroll("q")}),
      {});
  // p itself reads into the padding at both ends: its head, interior and tail each hold the six.
  EXPECT_EQ(loops_named(n, "p").size(), 3u);
  const auto copies = loops_named(n, "q");
  ASSERT_EQ(copies.size(), 18u);
  for (std::size_t i = 0; i < copies.size(); ++i) {
    EXPECT_EQ(copies[i]->kind, LoopKind::unrolled);
    EXPECT_EQ(copies[i]->lowering.begin, static_cast<std::int64_t>(i % 6));
    EXPECT_EQ(copies[i]->lowering.end, static_cast<std::int64_t>(i % 6) + 1);
  }
}

TEST(SplitTails, AWindowOverPaddingBecomesItsHeadInteriorAndTail) {
  // 11 rows, 3-row windows at stride 2 from row -1: output row 0 reads row -1, row 5 reads row
  // 11; rows 1 to 4 read only inside the tensor.
  const std::string pool = "maxpool2d:N=1,C=4,H=11,W=11,R=3,S=3,stride=2,pad=1";
  const LoopNest n = lower_cpu_nest(initial_nest(op_from_cli(pool)), {});
  const auto parts = loops_named(n, "s0.p");  // a pooling's statement is stage 0 of its nest
  ASSERT_EQ(parts.size(), 3u);
  const std::vector<std::pair<std::int64_t, std::int64_t>> want{{0, 1}, {1, 5}, {5, -1}};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    EXPECT_TRUE(parts[i]->lowering.split_part);
    EXPECT_EQ(parts[i]->lowering.begin, want[i].first) << i;
    EXPECT_EQ(parts[i]->lowering.end, want[i].second) << i;
  }
  const std::string c = lower_cpu(initial_nest(op_from_cli(pool))).source;
  EXPECT_NE(c.find("s0.p in [1, 5): the interior, no checks of its own"), std::string::npos);
  // The statement inside both interiors is the only one with no bounds check at all.
  std::size_t unchecked = 0;
  for (std::size_t at = c.find("= attune_max(Y"); at != std::string::npos; at = c.find("= attune_max(Y", at + 1)) {
    const std::size_t line = c.rfind('\n', at);
    unchecked += c.substr(line, at - line).find("if (") == std::string::npos;
  }
  EXPECT_EQ(unchecked, 1u);
}

}  // namespace
}  // namespace attune
