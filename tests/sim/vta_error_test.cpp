// Error: every fault the hardware raises stops the program with runtime_error and the exact
// message, and the instructions after it do not run.
#include <gtest/gtest.h>

#include "sim/vta_sim.hpp"

namespace attune {
namespace {

VtaResult run(const VtaProgramBuilder& b, std::size_t dram_bytes = 1 << 16) {
  std::vector<std::uint8_t> dram(dram_bytes, 0);
  VtaResult r = run_vta(b.program(), dram, default_vta_config());
  // The same fault in timing mode.
  VtaResult t = run_vta(b.program(), dram, default_vta_config(), VtaMode::timing);
  EXPECT_EQ(t.error, r.error);
  EXPECT_EQ(t.total_cycles, r.total_cycles);
  return r;
}

void expect_fault(const VtaResult& r, VtaErrorKind kind, std::int64_t insn, const std::string& msg) {
  EXPECT_EQ(r.status, Status::runtime_error);
  EXPECT_EQ(r.error_kind, kind) << vta_error_kind_name(r.error_kind);
  EXPECT_EQ(r.error_insn, insn);
  EXPECT_EQ(r.error, msg);
}

TEST(VtaError, LoadPastInputBuffer) {
  VtaProgramBuilder b;
  b.load(VtaMemType::inp, {.sram_base = 2040, .x_size = 16});
  b.load(VtaMemType::inp, {.x_size = 1});
  b.finish();
  VtaResult r = run(b);
  expect_fault(r, VtaErrorKind::buffer_overflow, 0,
               "insn 0 (LOAD inp): LOAD inp overflows the input buffer: entries [2040, 2056) but it holds 2048");
  EXPECT_EQ(r.count(VtaOpcode::load), 0u);  // stopped at the fault
}

TEST(VtaError, PaddingCountsTowardsTheBuffer) {
  VtaProgramBuilder b;
  b.load(VtaMemType::wgt, {.sram_base = 1000, .y_size = 4, .x_size = 4, .y_pad_0 = 1, .x_pad_1 = 1});
  b.finish();
  expect_fault(run(b), VtaErrorKind::buffer_overflow, 0,
               "insn 0 (LOAD wgt): LOAD wgt overflows the weight buffer: entries [1000, 1025) but it holds 1024");
}

TEST(VtaError, StorePastAccumulator) {
  VtaProgramBuilder b;
  b.store({.sram_base = 2047, .x_size = 2});
  b.finish();
  expect_fault(
      run(b), VtaErrorKind::buffer_overflow, 0,
      "insn 0 (STORE out): STORE out overflows the accumulator buffer: entries [2047, 2049) but it holds 2048");
}

TEST(VtaError, GemmIndexPastInputBuffer) {
  VtaProgramBuilder b;
  std::vector<std::uint8_t> dram(1 << 12, 0);
  write_uops(dram, 0, std::vector<VtaUop>{{0, 2047, 0}});
  b.load(VtaMemType::uop, {.x_size = 1});
  b.gemm({.iter_out = 2, .dst_factor_out = 1, .src_factor_out = 1});
  b.finish();
  VtaResult r = run_vta(b.program(), dram, default_vta_config());
  expect_fault(r, VtaErrorKind::buffer_overflow, 1,
               "insn 1 (GEMM): GEMM micro-op 0 reaches input entry 2048 at iteration (1, 0), past the end of the "
               "input buffer (2048 entries)");
}

TEST(VtaError, AluIndexPastAccumulator) {
  VtaProgramBuilder b;
  b.alu(VtaAluOp::add, {.iter_out = 2, .iter_in = 3, .dst_factor_out = 2000, .dst_factor_in = 30});
  b.finish();
  expect_fault(run(b), VtaErrorKind::buffer_overflow, 0,
               "insn 0 (ALU): ALU micro-op 0 reaches accumulator entry 2060 at iteration (1, 2), past the end of "
               "the accumulator buffer (2048 entries)");
}

TEST(VtaError, MicroOpKernelPastMicroOpBuffer) {
  VtaProgramBuilder b;
  b.gemm({.uop_bgn = 8000, .uop_end = 8193});
  b.finish();
  expect_fault(run(b), VtaErrorKind::uop_overflow, 0,
               "insn 0 (GEMM): GEMM micro-op kernel [8000, 8193) exceeds the micro-op buffer (8192 entries)");
  VtaProgramBuilder l;
  l.load(VtaMemType::uop, {.sram_base = 8100, .x_size = 100});
  l.finish();
  expect_fault(run(l), VtaErrorKind::uop_overflow, 0,
               "insn 0 (LOAD uop): LOAD uop overflows the micro-op buffer: entries [8100, 8200) but it holds 8192");
}

TEST(VtaError, DmaOutsideDram) {
  VtaProgramBuilder b;
  b.load(VtaMemType::inp, {.dram_base = 60, .x_size = 8});
  b.finish();
  expect_fault(run(b, 1024), VtaErrorKind::dram_out_of_range, 0,
               "insn 0 (LOAD inp): LOAD inp reads DRAM bytes [960, 1088) outside the DRAM region of 1024 bytes");
  VtaProgramBuilder s;
  s.store({.dram_base = 10, .y_size = 4, .x_size = 2, .x_stride = 40});
  s.finish();
  expect_fault(run(s, 2048), VtaErrorKind::dram_out_of_range, 0,
               "insn 0 (STORE out): STORE out writes DRAM bytes [160, 2112) outside the DRAM region of 2048 bytes");
}

TEST(VtaError, SameAccumulatorInConsecutiveCycles) {
  std::vector<std::uint8_t> dram(1 << 12, 0);
  write_uops(dram, 0, std::vector<VtaUop>{{5, 0, 0}, {5, 1, 1}, {6, 0, 0}});
  auto gemm = [&](VtaLoop loop) {
    VtaProgramBuilder b;
    b.load(VtaMemType::uop, {.x_size = 3});
    b.gemm(loop);
    b.finish();
    return run_vta(b.program(), dram, default_vta_config());
  };
  // Two neighbouring micro-ops with one destination.
  expect_fault(gemm({.uop_bgn = 0, .uop_end = 2}), VtaErrorKind::acc_hazard, 1,
               "insn 1 (GEMM): GEMM writes accumulator entry 5 in consecutive cycles (micro-ops 0 and 1): "
               "pipeline hazard");
  // One micro-op, a reduction loop that does not move the destination.
  expect_fault(gemm({.uop_bgn = 2, .uop_end = 3, .iter_out = 4, .src_factor_out = 1}), VtaErrorKind::acc_hazard, 1,
               "insn 1 (GEMM): GEMM writes accumulator entry 6 in consecutive cycles (last micro-op of iteration "
               "(0, 0), first of (1, 0)): pipeline hazard");
  // The inner loop brings the last destination back onto the first one.
  expect_fault(gemm({.uop_bgn = 1, .uop_end = 3, .iter_in = 2, .dst_factor_in = 1}), VtaErrorKind::acc_hazard, 1,
               "insn 1 (GEMM): GEMM writes accumulator entry 6 in consecutive cycles (last micro-op of iteration "
               "(0, 0), first of (0, 1)): pipeline hazard");
  // Interleaving two destinations is the fix; a reset never reads, so it has no hazard.
  EXPECT_TRUE(gemm({.uop_bgn = 1, .uop_end = 3, .iter_out = 4, .src_factor_out = 1}).ok());
  VtaProgramBuilder reset;
  reset.gemm_reset({.iter_out = 4});
  reset.finish();
  EXPECT_TRUE(run(reset).ok());
}

TEST(VtaError, DeadlockNamesEveryWaitingModule) {
  VtaProgramBuilder b;
  b.load(VtaMemType::inp, {.x_size = 1}, {.pop_next = true});
  b.gemm({}, {.pop_prev = true});
  b.store({.x_size = 1}, {.pop_prev = true});
  b.finish();
  expect_fault(run(b), VtaErrorKind::deadlock, 0,
               "deadlock: load module waits at insn 0 (LOAD inp) for a g2l token; compute module waits at insn 1 "
               "(GEMM) for a l2g token; store module waits at insn 2 (STORE out) for a g2s token");
  VtaProgramBuilder c;
  c.load(VtaMemType::inp, {.x_size = 1}, {.push_next = true});
  c.finish({.pop_prev = true, .pop_next = true});
  VtaResult r = run(c);
  expect_fault(r, VtaErrorKind::deadlock, 1,
               "deadlock: load module is done; compute module waits at insn 1 (FINISH) for a s2g token; store module "
               "is done");
  EXPECT_EQ(r.count(VtaOpcode::load), 1u);
  EXPECT_GT(r.total_cycles, 0u);
}

TEST(VtaError, MalformedPrograms) {
  VtaProgramBuilder none;
  none.load(VtaMemType::inp, {});
  expect_fault(run(none), VtaErrorKind::bad_insn, 0, "insn 0 (LOAD inp): the program does not end with FINISH");
  expect_fault(run(VtaProgramBuilder{}), VtaErrorKind::bad_insn, -1, "the program does not end with FINISH");

  VtaProgramBuilder twice;
  twice.finish();
  twice.finish();
  expect_fault(run(twice), VtaErrorKind::bad_insn, 0, "insn 0 (FINISH): FINISH is not the last instruction");

  VtaProgramBuilder flags;
  flags.load(VtaMemType::wgt, {}, {.push_prev = true});
  flags.finish();
  expect_fault(run(flags), VtaErrorKind::bad_insn, 0,
               "insn 0 (LOAD wgt): the load module has no previous module to exchange a token with "
               "(pop_prev/push_prev set)");

  VtaProgramBuilder wide;
  wide.gemm({.iter_out = 16384});
  wide.finish();
  expect_fault(run(wide), VtaErrorKind::bad_insn, 0,
               "insn 0 (GEMM): field does not fit the instruction encoding: iter_out=16384 exceeds its 14-bit field");

  VtaProgramBuilder pad;
  pad.store({.x_size = 1, .x_pad_0 = 1});
  pad.finish();
  expect_fault(run(pad), VtaErrorKind::bad_insn, 0, "insn 0 (STORE out): STORE does not support padding");

  VtaProgramBuilder rev;
  rev.alu(VtaAluOp::max, {.uop_bgn = 5, .uop_end = 2});
  rev.finish();
  expect_fault(run(rev), VtaErrorKind::bad_insn, 0, "insn 0 (ALU): micro-op range is reversed: uop_bgn=5 > uop_end=2");

  VtaProgramBuilder out;
  out.load(VtaMemType::out, {});
  out.finish();
  expect_fault(run(out), VtaErrorKind::bad_insn, 0,
               "insn 0 (LOAD out): LOAD cannot target the out buffer (only STORE reads it)");

  VtaProgramBuilder bogus;
  bogus.finish().opcode = static_cast<VtaOpcode>(6);
  bogus.finish();
  expect_fault(run(bogus), VtaErrorKind::bad_insn, 0,
               "insn 0 (?): field does not fit the instruction encoding: opcode=6 is not a VTA opcode");
}

TEST(VtaError, InvalidConfigIsAResultNotAnException) {
  VtaConfig cfg = default_vta_config();
  cfg.log_block_in = 40;
  VtaProgramBuilder b;
  b.finish();
  std::vector<std::uint8_t> dram(64);
  VtaResult r = run_vta(b.program(), dram, cfg);
  EXPECT_EQ(r.status, Status::runtime_error);
  EXPECT_EQ(r.error,
            "simulator failure: VtaConfig 'default': field 'LOG_BLOCK_IN': expected an integer in [0, 6], got 40");
}

}  // namespace
}  // namespace attune
