// Correctness: VTA programs compute what a naive integer loop computes, bit for bit.
#include <gtest/gtest.h>

#include <cstring>

#include "sim/vta_gemm_program.hpp"
#include "sim/vta_sim.hpp"

namespace attune {
namespace {

using test::GemmCase;

void expect_gemm_ok(const GemmCase& gc, const VtaConfig& cfg) {
  test::GemmBuild g = test::build_gemm(gc, cfg);
  VtaResult r = run_vta(g.prog, g.dram.bytes(), cfg);
  ASSERT_TRUE(r.ok()) << r.error << "\n" << disassemble(g.prog);
  EXPECT_EQ(test::read_c(g, cfg), g.expect);
  EXPECT_EQ(r.macs, std::uint64_t(g.m) * g.n * g.k);
  EXPECT_EQ(r.count(VtaOpcode::finish), 1u);
  EXPECT_EQ(
      r.count(VtaOpcode::load) + r.count(VtaOpcode::store) + r.count(VtaOpcode::gemm) + r.count(VtaOpcode::alu) + 1,
      g.prog.insns.size());
  EXPECT_EQ(r.bytes(VtaMemType::out), std::uint64_t(g.m) * g.n);
  EXPECT_GT(r.total_cycles, 0u);
}

TEST(VtaFunctional, TiledGemmWithBiasShiftClipMatchesNaive) {
  const VtaConfig cfg = default_vta_config();
  expect_gemm_ok({.mb = 2, .kb = 4, .nb = 3, .k_chunk = 2, .n_chunk = 2, .seed = 1}, cfg);
  expect_gemm_ok({.mb = 3, .kb = 5, .nb = 4, .k_chunk = 3, .n_chunk = 3, .shift = 9, .seed = 2}, cfg);
  expect_gemm_ok({.mb = 1, .kb = 7, .nb = 5, .k_chunk = 1, .n_chunk = 2, .shift = 4, .lo = 0, .hi = 127, .seed = 3},
                 cfg);
  expect_gemm_ok({.mb = 8, .kb = 16, .nb = 8, .k_chunk = 16, .n_chunk = 8, .shift = 10, .seed = 4}, cfg);
}

TEST(VtaFunctional, StoreTruncatesWithoutClip) {
  // Without min/max the low 8 bits survive, as VTA's narrowing store does.
  expect_gemm_ok({.mb = 2, .kb = 3, .nb = 2, .bias = false, .clip = false, .shift = 2, .seed = 5},
                 default_vta_config());
}

TEST(VtaFunctional, ExtendedAndOddShapedCores) {
  expect_gemm_ok({.mb = 4, .kb = 6, .nb = 4, .k_chunk = 6, .n_chunk = 4, .seed = 6},
                 load_vta_config(vta_target_path("extended")));
  // BATCH 2, BLOCK_IN 4, BLOCK_OUT 8: the generic (not unrolled) tile kernel.
  const VtaConfig odd = parse_vta_config(R"({"LOG_INP_WIDTH": 3, "LOG_WGT_WIDTH": 3, "LOG_ACC_WIDTH": 5,
      "LOG_BATCH": 1, "LOG_BLOCK_IN": 2, "LOG_BLOCK_OUT": 3, "LOG_UOP_BUFF_SIZE": 15,
      "LOG_INP_BUFF_SIZE": 15, "LOG_WGT_BUFF_SIZE": 18, "LOG_ACC_BUFF_SIZE": 17})",
                                         "odd.json");
  expect_gemm_ok({.mb = 3, .kb = 5, .nb = 3, .k_chunk = 2, .n_chunk = 2, .shift = 3, .seed = 7}, odd);
}

TEST(VtaFunctional, TimingModeSameCyclesAndCountsWithoutTouchingData) {
  const VtaConfig cfg = default_vta_config();
  test::GemmBuild g = test::build_gemm({.mb = 3, .kb = 6, .nb = 5, .seed = 8}, cfg);
  std::vector<std::uint8_t> before(g.dram.bytes().begin(), g.dram.bytes().end());
  VtaResult t = run_vta(g.prog, g.dram.bytes(), cfg, VtaMode::timing);
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_TRUE(std::equal(before.begin(), before.end(), g.dram.bytes().begin()));
  VtaResult f = run_vta(g.prog, g.dram.bytes(), cfg, VtaMode::functional);
  ASSERT_TRUE(f.ok()) << f.error;
  EXPECT_EQ(t.total_cycles, f.total_cycles);
  EXPECT_EQ(t.load_busy_cycles, f.load_busy_cycles);
  EXPECT_EQ(t.compute_busy_cycles, f.compute_busy_cycles);
  EXPECT_EQ(t.store_busy_cycles, f.store_busy_cycles);
  EXPECT_EQ(t.insn_count, f.insn_count);
  EXPECT_EQ(t.dma_bytes, f.dma_bytes);
  EXPECT_EQ(t.macs, f.macs);
  EXPECT_EQ(t.uops_loaded, f.uops_loaded);
}

TEST(VtaFunctional, LoadPaddingZeroFillsAroundTheTile) {
  // Input 2x3 tiles padded by (1,1) rows and (1,2) columns into a 4x6 SRAM window, copied to
  // the accumulators by an identity weight tile and stored back.
  const VtaConfig cfg = default_vta_config();
  const std::uint32_t E = cfg.inp_elem_bytes();  // 16
  VtaDram dram(1 << 16);
  const std::size_t in_off = dram.alloc(6 * E, E), w_off = dram.alloc(cfg.wgt_elem_bytes(), cfg.wgt_elem_bytes());
  const std::size_t out_off = dram.alloc(24 * E, E);
  for (std::uint32_t i = 0; i < 6 * E; ++i) dram.bytes()[in_off + i] = std::uint8_t(1 + i % 120);
  for (std::uint32_t o = 0; o < 16; ++o) dram.bytes()[w_off + o * 16 + o] = 1;
  const std::size_t uops = dram.put_uops({VtaUop{0, 0, 0}});

  VtaProgramBuilder b;
  b.load(VtaMemType::uop, {.dram_base = std::uint32_t(uops / 4)});
  b.load(VtaMemType::inp, {.dram_base = std::uint32_t(in_off / E),
                           .y_size = 2,
                           .x_size = 3,
                           .x_stride = 3,
                           .y_pad_0 = 1,
                           .y_pad_1 = 1,
                           .x_pad_0 = 1,
                           .x_pad_1 = 2});
  b.load(VtaMemType::wgt, {.dram_base = std::uint32_t(w_off / cfg.wgt_elem_bytes())}, {.push_next = true});
  b.gemm({.iter_out = 24, .dst_factor_out = 1, .src_factor_out = 1}, {.pop_prev = true, .push_next = true});
  b.store({.dram_base = std::uint32_t(out_off / E), .x_size = 24}, {.pop_prev = true, .push_prev = true});
  b.finish({.pop_next = true});
  VtaResult r = run_vta(b.program(), dram.bytes(), cfg);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.bytes(VtaMemType::inp), 6u * E);  // padding moves no DRAM bytes
  for (std::uint32_t row = 0; row < 4; ++row)
    for (std::uint32_t col = 0; col < 6; ++col) {
      const bool pad = row == 0 || row == 3 || col == 0 || col >= 4;
      for (std::uint32_t e = 0; e < E; ++e) {
        const std::uint8_t want = pad ? 0 : dram.bytes()[in_off + ((row - 1) * 3 + (col - 1)) * E + e];
        ASSERT_EQ(dram.bytes()[out_off + (row * 6 + col) * E + e], want) << "row " << row << " col " << col;
      }
    }
}

// One ALU op on accumulator entry 0 with entry 1 (or an immediate) as the operand.
std::vector<std::int8_t> run_alu(VtaAluOp op, bool imm, std::int32_t imm_value, const std::vector<std::int32_t>& a,
                                 const std::vector<std::int32_t>& rhs) {
  const VtaConfig cfg = default_vta_config();
  VtaDram dram(1 << 12);
  const std::size_t acc_off = dram.alloc(2 * cfg.acc_elem_bytes(), cfg.acc_elem_bytes());
  std::memcpy(dram.bytes().data() + acc_off, a.data(), 64);
  std::memcpy(dram.bytes().data() + acc_off + 64, rhs.data(), 64);
  const std::size_t out_off = dram.alloc(16, 16);
  const std::size_t uops = dram.put_uops({VtaUop{0, 1, 0}});
  VtaProgramBuilder b;
  b.load(VtaMemType::uop, {.dram_base = std::uint32_t(uops / 4)});
  b.load(VtaMemType::acc, {.dram_base = std::uint32_t(acc_off / 64), .x_size = 2});
  if (imm)
    b.alu_imm(op, imm_value, {}, {.push_next = true});
  else
    b.alu(op, {}, {.push_next = true});
  b.store({.dram_base = std::uint32_t(out_off / 16)}, {.pop_prev = true});
  b.finish();
  VtaResult r = run_vta(b.program(), dram.bytes(), cfg);
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.alu_uop_iters, 1u);
  std::vector<std::int8_t> out(16);
  std::memcpy(out.data(), dram.bytes().data() + out_off, 16);
  return out;
}

TEST(VtaFunctional, AluOpsWithImmediateAndTensorOperand) {
  std::vector<std::int32_t> a(16), s(16);
  for (int i = 0; i < 16; ++i) {
    a[i] = (i * 7) % 31 - 15;  // [-15, 15]
    s[i] = i % 7 - 3;          // [-3, 3]: negative shifts go left
  }
  auto ref = [](VtaAluOp op, std::int32_t x, std::int32_t y) -> std::int32_t {
    switch (op) {
      case VtaAluOp::min: return std::min(x, y);
      case VtaAluOp::max: return std::max(x, y);
      case VtaAluOp::add: return x + y;
      case VtaAluOp::shr: return y >= 0 ? x >> y : x * (1 << -y);
      case VtaAluOp::mul: return x * y;
    }
    return 0;
  };
  for (VtaAluOp op : {VtaAluOp::min, VtaAluOp::max, VtaAluOp::add, VtaAluOp::shr, VtaAluOp::mul}) {
    const std::int32_t imm = op == VtaAluOp::shr ? 2 : -4;
    auto with_imm = run_alu(op, true, imm, a, s);
    auto with_tensor = run_alu(op, false, 0, a, s);
    for (int i = 0; i < 16; ++i) {
      EXPECT_EQ(with_imm[i], std::int8_t(ref(op, a[i], imm))) << vta_alu_name(op) << " imm lane " << i;
      EXPECT_EQ(with_tensor[i], std::int8_t(ref(op, a[i], s[i]))) << vta_alu_name(op) << " lane " << i;
    }
  }
}

TEST(VtaFunctional, StoreKeepsLowByteOfAccumulator) {
  std::vector<std::int32_t> a(16, 300), z(16, 0);
  a[1] = -129;
  auto out = run_alu(VtaAluOp::add, false, 0, a, z);
  EXPECT_EQ(out[0], std::int8_t(44));   // 300 = 0x12C
  EXPECT_EQ(out[1], std::int8_t(127));  // -129 = 0x...7F
}

}  // namespace
}  // namespace attune
