// Speed of the VTA simulator on one core: int8 MACs per second in functional mode, and how
// much faster timing-only mode runs the same program. Usage: vta_sim_speed [gemm_count]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "sim/vta_sim.hpp"

namespace {

using namespace attune;

// Fills the input and weight buffers once, then `gemms` GEMMs of 32 x 16 x 64 micro-op
// iterations each (every accumulator entry of the default config, no hazards).
VtaProgram make_program(const VtaConfig& cfg, VtaDram& dram, int gemms) {
  std::mt19937 rng(7);
  const std::size_t inp = dram.alloc(std::size_t(cfg.inp_depth()) * cfg.inp_elem_bytes());
  const std::size_t wgt = dram.alloc(std::size_t(cfg.wgt_depth()) * cfg.wgt_elem_bytes(), cfg.wgt_elem_bytes());
  for (std::size_t i = inp; i < dram.used(); ++i) dram.bytes()[i] = std::uint8_t(rng());
  std::vector<VtaUop> uops;
  for (std::uint32_t j = 0; j < 64; ++j) uops.push_back({j, j, j});
  const std::size_t u = dram.put_uops(uops);

  VtaProgramBuilder b;
  b.load(VtaMemType::uop, {.dram_base = std::uint32_t(u / 4), .x_size = 64});
  b.load(VtaMemType::inp, {.dram_base = std::uint32_t(inp / cfg.inp_elem_bytes()), .x_size = cfg.inp_depth()});
  b.load(VtaMemType::wgt, {.dram_base = std::uint32_t(wgt / cfg.wgt_elem_bytes()), .x_size = cfg.wgt_depth()},
         {.push_next = true});
  for (int g = 0; g < gemms; ++g)
    b.gemm(
        {.uop_end = 64, .iter_out = 32, .iter_in = 16, .dst_factor_out = 64, .src_factor_in = 64, .wgt_factor_in = 64},
        {.pop_prev = g == 0});
  b.finish();
  return b.take();
}

double seconds_of(const VtaProgram& p, std::span<std::uint8_t> dram, const VtaConfig& cfg, VtaMode mode, VtaResult& r) {
  const auto t0 = std::chrono::steady_clock::now();
  r = run_vta(p, dram, cfg, mode);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int gemms = argc > 1 ? std::atoi(argv[1]) : 100;
  const VtaConfig cfg = default_vta_config();
  VtaDram dram(1 << 20);
  const VtaProgram prog = make_program(cfg, dram, gemms);

  VtaResult f, t;
  seconds_of(prog, dram.bytes(), cfg, VtaMode::functional, f);  // warm-up
  const double fs = seconds_of(prog, dram.bytes(), cfg, VtaMode::functional, f);
  const double ts = seconds_of(prog, dram.bytes(), cfg, VtaMode::timing, t);
  if (!f.ok() || !t.ok()) {
    std::fprintf(stderr, "simulation failed: %s\n", (f.ok() ? t : f).error.c_str());
    return 1;
  }
  std::printf("vta_sim functional: %.1f M int8 MACs in %.3f s = %.0f M MACs/s (one core, %llu cycles simulated)\n",
              f.macs / 1e6, fs, f.macs / 1e6 / fs, static_cast<unsigned long long>(f.total_cycles));
  std::printf("vta_sim timing-only: same program in %.3f ms (%.0fx faster than functional)\n", ts * 1e3,
              fs / (ts > 0 ? ts : 1e-9));
  return 0;
}
