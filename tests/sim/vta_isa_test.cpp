// Round trip: instructions and micro-ops through their hardware words; builder; disassembler.
#include <gtest/gtest.h>

#include <random>

#include "ir/error.hpp"
#include "sim/vta_program.hpp"

namespace attune {
namespace {

TEST(VtaIsa, EveryOpcodeRoundTripsAtItsFieldLimits) {
  VtaProgramBuilder b;
  // clang-format off
  b.load(VtaMemType::acc, {.sram_base = 65535, .dram_base = 0xFFFFFFFFu, .y_size = 65535, .x_size = 65535,
                           .x_stride = 65535, .y_pad_0 = 15, .y_pad_1 = 14, .x_pad_0 = 13, .x_pad_1 = 12},
         {.pop_prev = true, .push_next = true});
  // clang-format on
  // clang-format off
  b.store({.sram_base = 7, .dram_base = 9, .y_size = 2, .x_size = 3, .x_stride = 5}, {.pop_prev = true, .push_prev = true});
  b.gemm({.uop_bgn = 8191, .uop_end = 16383, .iter_out = 16383, .iter_in = 1, .dst_factor_out = 2047,
          .dst_factor_in = 1, .src_factor_out = 2047, .src_factor_in = 2, .wgt_factor_out = 1023, .wgt_factor_in = 3},
         {.pop_next = true});
  // clang-format on
  b.gemm_reset({.uop_end = 4, .iter_out = 2, .iter_in = 3});
  b.alu_imm(VtaAluOp::shr, -32768, {.uop_bgn = 1, .uop_end = 2, .dst_factor_out = 3, .src_factor_in = 4},
            {.push_prev = true});
  b.alu_imm(VtaAluOp::mul, 32767, {});
  b.alu(VtaAluOp::max, {.iter_in = 9});
  b.finish({.pop_prev = true, .pop_next = true, .push_prev = true, .push_next = true});
  for (const VtaInsn& in : b.program().insns) EXPECT_EQ(decode_insn(encode_insn(in)), in) << disassemble(in);
}

TEST(VtaIsa, KnownWordsMatchVtaLayout) {
  VtaInsn in;
  in.opcode = VtaOpcode::gemm;
  in.deps.push_next = true;
  in.uop_bgn = 1;
  in.iter_in = 1;
  in.wgt_factor_in = 1;
  const VtaInsnWords w = encode_insn(in);
  EXPECT_EQ(w[0], 2ull | (1ull << 6) | (1ull << 8) | (1ull << 49));
  EXPECT_EQ(w[1], 1ull << 54);
  EXPECT_EQ(encode_uop({.dst_idx = 1, .src_idx = 2, .wgt_idx = 3}), 1u | (2u << 11) | (3u << 22));
}

TEST(VtaIsa, MicroOpsRoundTrip) {
  std::mt19937 rng(3);
  for (int i = 0; i < 1000; ++i) {
    const std::uint32_t w = rng();
    EXPECT_EQ(encode_uop(decode_uop(w)), w);
  }
  EXPECT_THROW(encode_uop({.dst_idx = 2048}), Error);
}

TEST(VtaIsa, EncodeRefusesFieldsThatDoNotFit) {
  VtaInsn in;
  in.opcode = VtaOpcode::alu;
  in.imm = 40000;
  try {
    encode_insn(in);
    FAIL() << "expected attune::Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "cannot encode ALU: imm=40000 is outside the signed 16-bit range [-32768, 32767]");
  }
  in.imm = 0;
  in.src_factor_in = 2048;
  EXPECT_EQ(vta_encoding_error(in), "src_factor_in=2048 exceeds its 11-bit field");
}

TEST(VtaIsa, RandomWordsDecodeOrRefuseAndReencodeStably) {
  std::mt19937_64 rng(11);
  int decoded = 0;
  for (int i = 0; i < 5000; ++i) {
    const VtaInsnWords w{rng(), rng()};
    VtaInsn in;
    try {
      in = decode_insn(w);
    } catch (const Error&) {
      continue;
    }
    ++decoded;
    // Unused bits are dropped, so the second round trip is exact.
    EXPECT_EQ(decode_insn(encode_insn(in)), in);
  }
  EXPECT_GT(decoded, 2000);
}

TEST(VtaIsa, BuilderDefaultsAndDisassembly) {
  VtaProgramBuilder b;
  VtaInsn& ld = b.load(VtaMemType::inp, {.dram_base = 64, .y_size = 4, .x_size = 8, .y_pad_0 = 1, .y_pad_1 = 1},
                       {.push_next = true});
  // clang-format off
  EXPECT_EQ(ld.x_stride, 8u);  // 0 means packed rows
  b.gemm({.uop_end = 16, .iter_out = 4, .iter_in = 2, .dst_factor_out = 16, .dst_factor_in = 1,
          .src_factor_out = 4, .wgt_factor_in = 1},
         {.pop_prev = true, .push_prev = true});
  // clang-format on
  b.alu_imm(VtaAluOp::shr, 8, {.iter_out = 16, .dst_factor_out = 1});
  b.alu(VtaAluOp::add, {.uop_bgn = 2, .uop_end = 3});
  b.store({.x_size = 16}, {.pop_prev = true});
  b.finish();
  EXPECT_EQ(disassemble(b.program()),
            "0: LOAD inp sram=0 dram=64 y=4 x=8 stride=8 pad=(1,1,0,0) [push_next]\n"
            "1: GEMM uop=[0,16) iter=(4,2) dst=(16,1) src=(4,0) wgt=(0,1) [pop_prev push_prev]\n"
            "2: ALU shr imm=8 uop=[0,1) iter=(16,1) dst=(1,0) src=(0,0)\n"
            "3: ALU add uop=[2,3) iter=(1,1) dst=(0,0) src=(0,0)\n"
            "4: STORE out sram=0 dram=0 y=1 x=16 stride=16 [pop_prev]\n"
            "5: FINISH\n");
  EXPECT_EQ(disassemble(VtaUop{3, 1, 7}), "uop dst=3 src=1 wgt=7");
}

TEST(VtaIsa, DramHelperAlignsAndRefusesOverflow) {
  VtaDram d(256);
  EXPECT_EQ(d.alloc(10, 1), 0u);
  EXPECT_EQ(d.alloc(16, 64), 64u);
  EXPECT_EQ(d.put_uops({VtaUop{1, 2, 3}}), 80u);
  EXPECT_EQ(decode_uop(std::uint32_t(d.bytes()[80]) | std::uint32_t(d.bytes()[81]) << 8 |
                       std::uint32_t(d.bytes()[82]) << 16 | std::uint32_t(d.bytes()[83]) << 24),
            (VtaUop{1, 2, 3}));
  EXPECT_THROW(d.alloc(200, 64), Error);
  EXPECT_THROW(d.alloc(1, 3), Error);
}

}  // namespace
}  // namespace attune
