// Timing: the cycle model's arithmetic, its monotonicity, and load/compute overlap via tokens.
#include <gtest/gtest.h>

#include "sim/vta_gemm_program.hpp"
#include "sim/vta_sim.hpp"

namespace attune {
namespace {

VtaResult run(const VtaProgram& p, const VtaConfig& cfg = default_vta_config(), std::span<std::uint8_t> image = {}) {
  std::vector<std::uint8_t> zeros(image.empty() ? 1 << 20 : 0, 0);
  std::span<std::uint8_t> dram = image.empty() ? std::span<std::uint8_t>(zeros) : image;
  VtaResult r = run_vta(p, dram, cfg, VtaMode::timing);
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_LE(std::max({r.load_busy_cycles, r.compute_busy_cycles, r.store_busy_cycles}), r.total_cycles);
  return r;
}

TEST(VtaTiming, CyclesFollowTheConfigConstants) {
  // Defaults: issue 1; DMA 2/row + bytes/8 + latency 64; GEMM pipeline 4 + 1 per iteration.
  VtaProgramBuilder b;
  b.load(VtaMemType::inp, {.x_size = 4}, {.push_next = true});         // 1 + (2 + 64/8) + 64 = 75
  b.gemm({.iter_out = 10, .dst_factor_out = 1}, {.pop_prev = true});   // 1 + 4 + 10 = 15
  b.alu_imm(VtaAluOp::shr, 3, {.iter_out = 10, .dst_factor_out = 1});  // 1 + 4 + 2*10 = 25
  b.finish();                                                          // 1
  VtaResult r = run(b.program());
  EXPECT_EQ(r.load_busy_cycles, 75u);
  EXPECT_EQ(r.compute_busy_cycles, 15u + 25u + 1u);
  EXPECT_EQ(r.store_busy_cycles, 0u);
  EXPECT_EQ(r.total_cycles, 75u + 41u);
  EXPECT_EQ(r.gemm_uop_iters, 10u);
  EXPECT_EQ(r.alu_uop_iters, 10u);
  EXPECT_EQ(r.bytes(VtaMemType::inp), 64u);

  VtaConfig slow = default_vta_config();
  slow.timing.gemm_ii = 3;
  slow.timing.alu_ii = 5;
  slow.timing.dram_latency_cycles = 100;
  EXPECT_EQ(run(b.program(), slow).total_cycles, (75u + 36u) + (1 + 4 + 30) + (1 + 4 + 50) + 1);
}

TEST(VtaTiming, TheDramChannelIsShared) {
  // A 1 KB input load (load module) and a 1 KB accumulator load (compute module) both start
  // at 0; the second one's data phase waits for the first one's.
  VtaProgramBuilder b;
  b.load(VtaMemType::inp, {.x_size = 64});
  b.load(VtaMemType::acc, {.x_size = 16});
  b.finish();
  VtaResult r = run(b.program());
  EXPECT_EQ(r.load_busy_cycles, 1u + 130u + 64u);
  EXPECT_EQ(r.compute_busy_cycles, (131u + 130u + 64u) + 1u);
  EXPECT_EQ(r.total_cycles, 326u);
}

TEST(VtaTiming, MoreWorkTakesMoreCycles) {
  const VtaConfig cfg = default_vta_config();
  std::uint64_t last = 0;
  for (std::uint32_t kb : {1u, 2u, 4u, 8u}) {
    test::GemmBuild g = test::build_gemm({.mb = 2, .kb = kb, .nb = 4, .k_chunk = 2}, cfg);
    const std::uint64_t cycles = run(g.prog, cfg, g.dram.bytes()).total_cycles;
    EXPECT_GT(cycles, last) << "kb=" << kb;
    last = cycles;
  }
}

// n groups of (LOAD 64 input tiles, GEMM over them). Serial: each load waits for the previous
// GEMM. Double-buffered: two halves of the input buffer, a load waits only for the GEMM that
// used its half two groups ago, so loads overlap GEMMs.
VtaProgram groups(int n, bool double_buffered) {
  VtaProgramBuilder b;
  for (int i = 0; i < n; ++i) {
    const std::uint32_t half = double_buffered ? std::uint32_t(i % 2) * 64 : 0;
    const bool wait = double_buffered ? i >= 2 : i >= 1;
    b.load(VtaMemType::inp, {.sram_base = half, .dram_base = std::uint32_t(i) * 64, .x_size = 64},
           {.pop_next = wait, .push_next = true});
    b.gemm({.iter_out = 4,
            .iter_in = 50,
            .dst_factor_out = 50,
            .dst_factor_in = 1,
            .src_factor_out = 0,
            .src_factor_in = 1},
           {.pop_prev = true, .push_prev = true})
        .uop_bgn = 0;
  }
  b.finish();
  return b.take();
}

TEST(VtaTiming, OverlappingLoadAndComputeBeatsSerial) {
  const VtaResult serial = run(groups(8, false));
  const VtaResult overlap = run(groups(8, true));
  EXPECT_EQ(serial.load_busy_cycles, overlap.load_busy_cycles);
  EXPECT_EQ(serial.compute_busy_cycles, overlap.compute_busy_cycles);
  // Serial is the sum of both modules' work; overlapped approaches the larger one.
  EXPECT_EQ(serial.total_cycles, serial.load_busy_cycles + serial.compute_busy_cycles);
  EXPECT_LT(overlap.total_cycles, serial.total_cycles * 6 / 10);
  EXPECT_GE(overlap.total_cycles, std::max(overlap.load_busy_cycles, overlap.compute_busy_cycles));
}

}  // namespace
}  // namespace attune
