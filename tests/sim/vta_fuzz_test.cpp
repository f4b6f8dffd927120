// Fuzz: thousands of random instruction streams (fixed seed) never crash, always come back
// with a status, and timing mode agrees with functional mode on everything but the data.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>

#include "sim/vta_sim.hpp"

namespace attune {
namespace {

class Gen {
 public:
  explicit Gen(std::uint32_t seed) : rng_(seed) {}

  int uni(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  // Mostly small values, sometimes near a limit (a buffer's end, the DRAM's end).
  std::uint32_t field(int small, std::uint32_t limit) {
    if (chance(0.93)) return std::uint32_t(uni(0, small));
    return std::uint32_t(std::max<std::int64_t>(0, std::int64_t(limit) + uni(-16, 16)));
  }

  VtaInsn insn(const VtaConfig& cfg, std::size_t dram_entries) {
    VtaInsn in;
    const int op = uni(0, 999) / 10;
    in.opcode = op < 30                  ? VtaOpcode::load
                : op < 42                ? VtaOpcode::store
                : op < 68                ? VtaOpcode::gemm
                : op < 99 || chance(0.7) ? VtaOpcode::alu
                                         : VtaOpcode::finish;
    in.deps = {chance(0.25), chance(0.25), chance(0.25), chance(0.25)};
    in.mem = static_cast<VtaMemType>(uni(0, 4));
    if (in.opcode == VtaOpcode::store && chance(0.95)) in.mem = VtaMemType::out;
    if (in.opcode == VtaOpcode::load && in.mem == VtaMemType::out && chance(0.95)) in.mem = VtaMemType::inp;
    in.sram_base = field(64, cfg.acc_depth());
    in.dram_base = field(int(dram_entries), std::uint32_t(dram_entries));
    in.y_size = field(4, 4);
    in.x_size = field(8, 8);
    in.x_stride = field(16, 16);
    in.y_pad_0 = chance(0.7) ? 0 : std::uint32_t(uni(0, 2));
    in.y_pad_1 = chance(0.7) ? 0 : std::uint32_t(uni(0, 2));
    in.x_pad_0 = chance(0.7) ? 0 : std::uint32_t(uni(0, 2));
    in.x_pad_1 = chance(0.7) ? 0 : std::uint32_t(uni(0, 2));
    in.reset = chance(0.2);
    in.uop_bgn = std::min(field(64, cfg.uop_depth()), 8191u);
    in.uop_end = chance(0.005) ? in.uop_bgn - 1 : in.uop_bgn + std::uint32_t(uni(0, 8));
    in.iter_out = field(6, 6);
    in.iter_in = field(6, 6);
    in.dst_factor_out = field(8, 1024);
    in.dst_factor_in = field(8, 512);
    in.src_factor_out = field(8, 1024);
    in.src_factor_in = field(8, 512);
    in.wgt_factor_out = field(8, 512);
    in.wgt_factor_in = field(8, 256);
    in.alu_op = static_cast<VtaAluOp>(uni(0, 4));
    in.use_imm = chance(0.5);
    in.imm = uni(-40, 40);
    // Token flags the executing module cannot honour, now and then.
    if (!chance(0.02)) {
      const bool load_module = in.opcode == VtaOpcode::load && (in.mem == VtaMemType::inp || in.mem == VtaMemType::wgt);
      if (load_module) in.deps.pop_prev = in.deps.push_prev = false;
      if (in.opcode == VtaOpcode::store) {
        in.deps.pop_next = in.deps.push_next = false;
        in.y_pad_0 = in.y_pad_1 = in.x_pad_0 = in.x_pad_1 = 0;
      }
    }
    if (chance(0.01)) break_encoding(in);
    return in;
  }

  // One field past what the 128-bit format holds, or a value no enum has.
  void break_encoding(VtaInsn& in) {
    switch (uni(0, 7)) {
      case 0: in.opcode = static_cast<VtaOpcode>(uni(5, 7)); break;
      case 1: in.mem = static_cast<VtaMemType>(uni(5, 7)); break;
      case 2: in.alu_op = static_cast<VtaAluOp>(uni(5, 7)); break;
      case 3: in.imm = uni(32768, 40000); break;
      case 4: in.iter_out = 1u << 14; break;
      case 5: in.x_pad_1 = 16; break;
      case 6: in.uop_bgn = 1u << 13; break;
      default: in.wgt_factor_in = 1u << 10; break;
    }
  }

  // DRAM: random bytes, with every other word a plausible micro-op (indices < 64) so loops
  // run often. A xorshift stream fills it: the fill must not dominate the test's time.
  std::vector<std::uint8_t> dram(std::size_t bytes) {
    std::vector<std::uint8_t> d(bytes);
    std::uint64_t x = rng_() | 1;
    for (std::size_t w = 0; w + 8 <= bytes; w += 8) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      std::uint64_t v = x;
      // Low word: dst/src/wgt each in [0, 63] (bits 0-5, 11-16, 22-27).
      v &= ~0xFFFFFFFFull | 0x3Fu | (0x3Fu << 11) | (0x3Fu << 22);
      std::memcpy(d.data() + w, &v, 8);
    }
    return d;
  }

 private:
  std::mt19937 rng_;
};

TEST(VtaFuzz, RandomStreamsAlwaysReturnAStatus) {
  const VtaConfig configs[] = {default_vta_config(), load_vta_config(vta_target_path("extended"))};
  Gen gen(20240611);
  std::map<VtaErrorKind, int> seen;
  constexpr int kPrograms = 4000;
  for (int p = 0; p < kPrograms; ++p) {
    const VtaConfig& cfg = configs[p % 2];
    const std::size_t dram_bytes = std::size_t(gen.uni(1, 16)) * 1024;
    VtaProgram prog;
    const int n = gen.uni(0, 24);
    for (int i = 0; i < n; ++i) prog.insns.push_back(gen.insn(cfg, dram_bytes / cfg.acc_elem_bytes()));
    if (gen.chance(0.97)) prog.insns.push_back(VtaInsn{});  // FINISH
    std::vector<std::uint8_t> d1 = gen.dram(dram_bytes), d2 = d1;

    const VtaResult f = run_vta(prog, d1, cfg, VtaMode::functional);
    const VtaResult t = run_vta(prog, d2, cfg, VtaMode::timing);
    ASSERT_TRUE(f.status == Status::ok || f.status == Status::runtime_error) << p;
    ASSERT_EQ(f.ok(), f.error.empty()) << p << ": " << f.error;
    ASSERT_EQ(f.ok(), f.error_kind == VtaErrorKind::none) << p << ": " << f.error;
    ASSERT_EQ(f.error, t.error) << p << "\n" << disassemble(prog);
    ASSERT_EQ(f.total_cycles, t.total_cycles) << p;
    ASSERT_EQ(f.insn_count, t.insn_count) << p;
    ASSERT_LE(f.compute_busy_cycles, f.total_cycles) << p;
    seen[f.error_kind] += 1;
    if (getenv("VTA_FUZZ_VERBOSE") && !f.ok()) std::printf("%s\n", f.error.c_str());
  }
  // The generator reaches every outcome, so the loop above really exercised each path.
  for (VtaErrorKind k :
       {VtaErrorKind::none, VtaErrorKind::bad_insn, VtaErrorKind::buffer_overflow, VtaErrorKind::uop_overflow,
        VtaErrorKind::dram_out_of_range, VtaErrorKind::acc_hazard, VtaErrorKind::deadlock})
    EXPECT_GT(seen[k], 0) << vta_error_kind_name(k);
  for (const auto& [k, count] : seen) std::printf("  %-18s %d\n", std::string(vta_error_kind_name(k)).c_str(), count);
}

}  // namespace
}  // namespace attune
