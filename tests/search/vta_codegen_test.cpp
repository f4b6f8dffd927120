// VTA code generation (codegen_vta.hpp): correctness against the reference evaluator for
// conv2d and gemm under several schedules (virtual threads included), every compile-error kind
// with its message, the runtime hazard, and the hidden features.
#include <gtest/gtest.h>

#include "codegen/codegen_vta.hpp"
#include "ir/error.hpp"

namespace attune {
namespace {

Op conv(const std::string& params) { return op_from_cli("conv2d:" + params + ",dtype=int8"); }
Op gemm(const std::string& params) { return op_from_cli("gemm:" + params + ",dtype=int8"); }

VtaKnobs knobs(std::int64_t b, std::int64_t h, std::int64_t w, std::int64_t ci, std::int64_t co, std::int64_t oc_vt,
               std::int64_t h_vt) {
  return {.tile_b = b, .tile_h = h, .tile_w = w, .tile_ci = ci, .tile_co = co, .oc_nthread = oc_vt, .h_nthread = h_vt};
}

void expect_bit_exact(const Op& op, const VtaKnobs& k, const VtaConfig& cfg = default_vta_config()) {
  SCOPED_TRACE(op.name + " " + k.to_json().dump());
  const VtaCompiled c = compile_vta(op, k, cfg);
  ASSERT_TRUE(c.ok()) << c.error;
  const VtaTimed t = vta_time(c, cfg);
  ASSERT_TRUE(t.m.ok()) << t.m.error;
  EXPECT_GT(t.cycles, 0u);
  const Measurement m = vta_verify(op, c, cfg, 7);
  EXPECT_EQ(m.status, Status::ok) << m.error;
  // Timing mode and functional mode agree on the cycles.
  EXPECT_DOUBLE_EQ(m.median_s, t.m.median_s);
}

TEST(VtaCodegen, Conv3x3BitExactUnderSeveralSchedules) {
  const Op op = conv("N=1,H=8,W=8,C=32,K=64,R=3,S=3,stride=1,pad=1");
  expect_bit_exact(op, knobs(1, 2, 8, 1, 1, 1, 1));
  expect_bit_exact(op, knobs(1, 4, 4, 2, 2, 1, 1));
  expect_bit_exact(op, knobs(1, 2, 4, 1, 1, 2, 1));  // two output-channel threads
  expect_bit_exact(op, knobs(1, 2, 8, 2, 2, 1, 2));  // two row threads
  expect_bit_exact(op, knobs(1, 1, 8, 1, 2, 2, 2));  // four threads
  expect_bit_exact(op, knobs(1, 8, 8, 2, 1, 1, 1));  // the whole image per tile
}

TEST(VtaCodegen, StridedAndPointwiseConvBitExact) {
  expect_bit_exact(conv("N=1,H=9,W=10,C=16,K=32,R=3,S=3,stride=2,pad=1"), knobs(1, 1, 5, 1, 1, 2, 1));
  expect_bit_exact(conv("N=1,H=9,W=10,C=16,K=32,R=3,S=3,stride=2,pad=1"), knobs(1, 5, 5, 1, 2, 1, 1));
  expect_bit_exact(conv("N=1,H=8,W=8,C=32,K=32,R=1,S=1,stride=2,pad=0"), knobs(1, 2, 4, 2, 1, 2, 2));
  expect_bit_exact(conv("N=2,H=6,W=6,C=16,K=16,R=3,S=3,stride=1,pad=0"), knobs(2, 2, 2, 1, 1, 1, 2));
}

TEST(VtaCodegen, GemmBitExact) {
  const Op op = gemm("M=8,N=64,K=48");
  expect_bit_exact(op, knobs(2, 1, 1, 1, 1, 1, 1));
  expect_bit_exact(op, knobs(4, 1, 1, 3, 2, 2, 2));
  expect_bit_exact(op, knobs(1, 1, 1, 3, 4, 1, 2));
  expect_bit_exact(op, knobs(8, 1, 1, 1, 2, 2, 1));
}

TEST(VtaCodegen, RefusesOpsItCannotMap) {
  EXPECT_THROW(vta_problem_of(op_from_cli("gemm:M=16,N=16,K=16")), Error);  // f32
  EXPECT_THROW(vta_problem_of(op_from_cli("conv2d:N=1,H=8,W=8,C=16,K=16,R=3,S=3,dtype=int8,layout=NHWC")), Error);
  EXPECT_THROW(vta_problem_of(op_from_cli("conv2d:N=1,H=8,W=8,C=16,K=16,R=3,S=3,dtype=int8,epilogue=relu")), Error);
  EXPECT_THROW(
      compile_vta(conv("N=1,H=8,W=8,C=16,K=16,R=3,S=3,pad=1"), knobs(1, 3, 1, 1, 1, 1, 1), default_vta_config()),
      Error);  // tile_h=3 does not divide 8
}

void expect_compile_error(const Op& op, const VtaKnobs& k, const std::string& kind, const std::string& message,
                          const VtaConfig& cfg = default_vta_config()) {
  const VtaCompiled c = compile_vta(op, k, cfg);
  EXPECT_EQ(c.status, Status::compile_error);
  EXPECT_EQ(c.error_kind, kind);
  EXPECT_EQ(c.error, "vta compile error (" + kind + "): " + message);
  EXPECT_TRUE(c.program.insns.empty());
  // Knob-level hidden features exist even for a refused config (they train the validity model).
  EXPECT_TRUE(c.hidden.contains("peak_entries"));
}

TEST(VtaCodegenErrors, InnermostPadding) {
  expect_compile_error(conv("N=1,H=8,W=8,C=8,K=16,R=3,S=3,pad=1"), knobs(1, 1, 8, 1, 1, 1, 1), "innermost_padding",
                       "padding on the innermost block: C=8 is not a multiple of BLOCK_IN=16, and the DMA pads only "
                       "outer dimensions");
}

TEST(VtaCodegenErrors, VirtualThreadSplit) {
  expect_compile_error(conv("N=1,H=8,W=8,C=16,K=16,R=3,S=3,pad=1"), knobs(1, 8, 8, 1, 1, 2, 1), "vthread_split",
                       "oc_nthread=2 does not divide the 1 output-channel tiles");
  expect_compile_error(conv("N=1,H=9,W=9,C=16,K=16,R=3,S=3,pad=1"), knobs(1, 3, 9, 1, 1, 1, 2), "vthread_split",
                       "h_nthread=2 does not divide the 3 row tiles");
}

TEST(VtaCodegenErrors, BufferOverflows) {
  expect_compile_error(conv("N=1,H=56,W=56,C=64,K=64,R=3,S=3,stride=1,pad=1"), knobs(1, 28, 56, 2, 1, 1, 1),
                       "inp_overflow",
                       "the input tile needs 3480 entries x 1 virtual thread = 3480, but the input buffer holds 2048");
  expect_compile_error(
      conv("N=1,H=7,W=7,C=512,K=512,R=3,S=3,stride=1,pad=1"), knobs(1, 1, 7, 4, 32, 1, 1), "wgt_overflow",
      "the weight tile needs 1152 entries x 1 virtual thread = 1152, but the weight buffer holds 1024");
  expect_compile_error(gemm("M=64,N=1024,K=16"), knobs(64, 1, 1, 1, 64, 1, 1), "acc_overflow",
                       "the accumulator tile needs 4096 entries x 1 virtual thread = 4096, but the accumulator "
                       "buffer holds 2048");
  // Two virtual threads each own a copy: a tile that fits alone overflows with two.
  expect_compile_error(gemm("M=64,N=1024,K=16"), knobs(32, 1, 1, 1, 64, 1, 2), "acc_overflow",
                       "the accumulator tile needs 2048 entries x 2 virtual threads = 4096, but the accumulator "
                       "buffer holds 2048");
  EXPECT_TRUE(compile_vta(gemm("M=64,N=1024,K=16"), knobs(32, 1, 1, 1, 64, 1, 1), default_vta_config()).ok());
}

TEST(VtaCodegenErrors, UopOverflowWithASmallMicroOpBuffer) {
  VtaConfig cfg = default_vta_config();
  cfg.log_uop_buff_size = 8;  // 64 micro-ops
  expect_compile_error(conv("N=1,H=8,W=8,C=16,K=16,R=3,S=3,pad=1"), knobs(1, 4, 8, 1, 1, 1, 1), "uop_overflow",
                       "the micro-op kernels need 97 micro-ops x 1 virtual thread = 97, but the micro-op buffer "
                       "holds 64",
                       cfg);
}

TEST(VtaCodegenErrors, NotExpressible) {
  // Padding 16 does not fit the DMA's 4-bit pad fields.
  const VtaCompiled c =
      compile_vta(conv("N=1,H=8,W=8,C=16,K=16,R=3,S=3,pad=16"), knobs(1, 38, 38, 1, 1, 1, 1), default_vta_config());
  EXPECT_EQ(c.error_kind, "not_expressible") << c.error;
  EXPECT_NE(c.error.find("pad"), std::string::npos) << c.error;
  // The second thread's accumulator tile starts at entry 2048, past the 11-bit micro-op field.
  const VtaCompiled d = compile_vta(gemm("M=4096,N=16,K=16"), knobs(2048, 1, 1, 1, 1, 1, 2),
                                    load_vta_config(vta_target_path("extended")));
  EXPECT_EQ(d.error_kind, "not_expressible") << d.error;
  EXPECT_NE(d.error.find("dst_idx=2048"), std::string::npos) << d.error;
}

TEST(VtaCodegenErrors, AccumulatorHazardIsARuntimeError) {
  // One accumulator entry per tile: consecutive micro-ops write the same entry.
  const VtaCompiled c =
      compile_vta(conv("N=1,H=4,W=4,C=16,K=16,R=3,S=3,pad=1"), knobs(1, 1, 1, 1, 1, 1, 1), default_vta_config());
  ASSERT_TRUE(c.ok()) << c.error;
  const VtaTimed t = vta_time(c, default_vta_config());
  EXPECT_EQ(t.m.status, Status::runtime_error);
  EXPECT_EQ(t.error_kind, VtaErrorKind::acc_hazard);
  EXPECT_EQ(t.hidden.value("runtime_error", ""), "acc_hazard");
}

TEST(VtaCodegen, HiddenFeatures) {
  const Op op = conv("N=1,H=8,W=8,C=32,K=32,R=3,S=3,stride=1,pad=1");
  const VtaConfig cfg = default_vta_config();
  const VtaCompiled c = compile_vta(op, knobs(1, 4, 8, 1, 1, 2, 1), cfg);
  ASSERT_TRUE(c.ok()) << c.error;
  const auto& h = c.hidden;
  for (const char* key : {"insn", "uops", "dma_bytes", "peak_entries", "peak_share", "threads", "tile_groups"})
    EXPECT_TRUE(h.contains(key)) << key;
  EXPECT_EQ(h["insn"]["total"].get<std::size_t>(), c.program.insns.size());
  EXPECT_EQ(h["insn"]["FINISH"], 1);
  EXPECT_EQ(h["uops"].get<std::size_t>(), c.uops.size());
  EXPECT_EQ(h["threads"], 2);
  // acc: 2 threads x (4 x 8) entries; weights: 2 x 1 x 1 x 9.
  EXPECT_EQ(h["peak_entries"]["acc"], 64);
  EXPECT_EQ(h["peak_entries"]["wgt"], 18);
  // Every output byte plane is stored once: 4 x 32 x 8 x 8 bytes.
  EXPECT_EQ(h["dma_bytes"]["out"], 4 * 32 * 8 * 8);
  // Static counts match what the simulator executes.
  const VtaTimed t = vta_time(c, cfg);
  ASSERT_TRUE(t.m.ok()) << t.m.error;
  EXPECT_TRUE(t.hidden.contains("cycles"));
  EXPECT_EQ(t.hidden["cycles"].get<std::uint64_t>(), t.cycles);
  std::vector<std::uint8_t> dram = vta_make_dram(op, c, cfg, nullptr);
  const VtaResult r = run_vta(c.program, dram, cfg, VtaMode::timing);
  EXPECT_EQ(h["insn"]["GEMM"].get<std::uint64_t>(), r.count(VtaOpcode::gemm));
  EXPECT_EQ(h["dma_bytes"]["inp"].get<std::uint64_t>(), r.bytes(VtaMemType::inp));
  EXPECT_EQ(h["dma_bytes"]["wgt"].get<std::uint64_t>(), r.bytes(VtaMemType::wgt));
  EXPECT_EQ(h["dma_bytes"]["out"].get<std::uint64_t>(), r.bytes(VtaMemType::out));
}

TEST(VtaCodegen, VerifyCatchesAWrongProgram) {
  const Op op = conv("N=1,H=8,W=8,C=16,K=16,R=3,S=3,stride=1,pad=1");
  const VtaConfig cfg = default_vta_config();
  VtaCompiled c = compile_vta(op, knobs(1, 8, 8, 1, 1, 1, 1), cfg);
  ASSERT_TRUE(c.ok()) << c.error;
  ASSERT_TRUE(vta_verify(op, c, cfg, 3).ok());
  // Without the first shift, byte plane 1 repeats plane 0.
  for (auto& in : c.program.insns)
    if (in.opcode == VtaOpcode::alu) {
      in.imm = 0;
      break;
    }
  const Measurement m = vta_verify(op, c, cfg, 3);
  EXPECT_EQ(m.status, Status::wrong_result);
  EXPECT_NE(m.error.find("differs from the reference evaluator"), std::string::npos) << m.error;
}

TEST(VtaCodegen, VirtualThreadsHideLatency) {
  const Op op = conv("N=1,H=16,W=16,C=64,K=64,R=3,S=3,stride=1,pad=1");
  const VtaConfig cfg = default_vta_config();
  const VtaTimed one = vta_time(compile_vta(op, knobs(1, 4, 16, 1, 2, 1, 1), cfg), cfg);
  const VtaTimed two = vta_time(compile_vta(op, knobs(1, 4, 16, 1, 1, 2, 1), cfg), cfg);
  ASSERT_TRUE(one.m.ok() && two.m.ok()) << one.m.error << two.m.error;
  EXPECT_LT(two.cycles, one.cycles);
}

}  // namespace
}  // namespace attune
