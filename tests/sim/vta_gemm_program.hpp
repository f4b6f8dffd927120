// Test helper: a tiled int8 GEMM with bias and requantisation, as a VTA program, and its
// naive reference. C[m][n] = clip((sum_k A[m][k] * B[n][k] + bias[n]) >> shift, lo, hi), the
// result truncated to int8 like STORE does.
//
// Shape in tiles: M = mb*BATCH, K = kb*BLOCK_IN, N = nb*BLOCK_OUT. The N dimension is cut in
// chunks of n_chunk tiles (one accumulator fill each), K in chunks of k_chunk tiles (one input
// and weight load each), so small chunks make many tiles. Synchronisation is VTA's
// single-buffered protocol: loads push l2g, GEMM pops it and pushes g2l back, the last ALU
// pushes g2s, STORE pops it and pushes s2g, which the next chunk's reset (and FINISH) pop.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "sim/vta_sim.hpp"

namespace attune::test {

struct GemmCase {
  std::uint32_t mb = 2, kb = 4, nb = 3;
  std::uint32_t k_chunk = 2, n_chunk = 2;
  bool bias = true;
  bool clip = true;
  int shift = 6;
  int lo = -100, hi = 100;
  std::uint32_t seed = 1;
};

struct GemmBuild {
  VtaProgram prog;
  VtaDram dram{0};
  std::size_t c_off = 0;            // byte offset of C (tiled) in dram
  std::vector<std::int8_t> a, b;    // row-major M x K and N x K
  std::vector<std::int32_t> bias;   // N
  std::vector<std::int8_t> expect;  // row-major M x N
  std::uint32_t m = 0, k = 0, n = 0;
};

inline std::vector<std::int8_t> read_c(const GemmBuild& g, const VtaConfig& cfg) {
  const std::uint32_t B = cfg.batch(), BO = cfg.block_out(), nb = g.n / BO;
  std::vector<std::int8_t> c(std::size_t(g.m) * g.n);
  for (std::uint32_t i = 0; i < g.m; ++i)
    for (std::uint32_t j = 0; j < g.n; ++j) {
      const std::size_t tile = std::size_t(i / B) * nb + j / BO;
      c[std::size_t(i) * g.n + j] = std::int8_t(g.dram.bytes()[g.c_off + tile * B * BO + (i % B) * BO + j % BO]);
    }
  return c;
}

inline GemmBuild build_gemm(const GemmCase& gc, const VtaConfig& cfg) {
  const std::uint32_t B = cfg.batch(), BI = cfg.block_in(), BO = cfg.block_out();
  GemmBuild g;
  g.m = gc.mb * B;
  g.k = gc.kb * BI;
  g.n = gc.nb * BO;
  std::mt19937 rng(gc.seed);
  std::uniform_int_distribution<int> i8(-128, 127), bi(-5000, 5000);
  g.a.resize(std::size_t(g.m) * g.k);
  g.b.resize(std::size_t(g.n) * g.k);
  g.bias.assign(g.n, 0);
  for (auto& v : g.a) v = std::int8_t(i8(rng));
  for (auto& v : g.b) v = std::int8_t(i8(rng));
  if (gc.bias)
    for (auto& v : g.bias) v = bi(rng);

  // Reference.
  g.expect.resize(std::size_t(g.m) * g.n);
  for (std::uint32_t i = 0; i < g.m; ++i)
    for (std::uint32_t j = 0; j < g.n; ++j) {
      std::int32_t s = g.bias[j];
      for (std::uint32_t kk = 0; kk < g.k; ++kk)
        s += std::int32_t(g.a[std::size_t(i) * g.k + kk]) * g.b[std::size_t(j) * g.k + kk];
      s >>= gc.shift;
      if (gc.clip) s = std::clamp(s, gc.lo, gc.hi);
      g.expect[std::size_t(i) * g.n + j] = static_cast<std::int8_t>(s);
    }

  // DRAM image, tiled as VTA expects: one entry per tile, tiles row-major.
  const std::uint32_t ie = cfg.inp_elem_bytes(), we = cfg.wgt_elem_bytes(), ae = cfg.acc_elem_bytes(),
                      oe = cfg.out_elem_bytes();
  g.dram = VtaDram(1 << 22);
  const std::size_t a_off = g.dram.alloc(std::size_t(gc.mb) * gc.kb * ie, ie);
  const std::size_t b_off = g.dram.alloc(std::size_t(gc.nb) * gc.kb * we, we);
  const std::size_t bias_off = g.dram.alloc(std::size_t(gc.nb) * ae, ae);
  g.c_off = g.dram.alloc(std::size_t(gc.mb) * gc.nb * oe, oe);
  auto d = g.dram.bytes();
  for (std::uint32_t i = 0; i < g.m; ++i)
    for (std::uint32_t kk = 0; kk < g.k; ++kk)
      d[a_off + (std::size_t(i / B) * gc.kb + kk / BI) * ie + (i % B) * BI + kk % BI] =
          std::uint8_t(g.a[std::size_t(i) * g.k + kk]);
  for (std::uint32_t j = 0; j < g.n; ++j)
    for (std::uint32_t kk = 0; kk < g.k; ++kk)
      d[b_off + (std::size_t(j / BO) * gc.kb + kk / BI) * we + (j % BO) * BI + kk % BI] =
          std::uint8_t(g.b[std::size_t(j) * g.k + kk]);
  for (std::uint32_t j = 0; j < g.n; ++j)
    for (std::uint32_t r = 0; r < B; ++r) {
      const std::uint32_t v = std::uint32_t(g.bias[j]);
      const std::size_t at = bias_off + std::size_t(j / BO) * ae + (std::size_t(r) * BO + j % BO) * 4;
      for (int byte = 0; byte < 4; ++byte) d[at + byte] = std::uint8_t(v >> (8 * byte));
    }

  // Micro-op kernels, one per (kc, nc) chunk shape, placed back to back in the uop buffer.
  // GEMM: uop (m, j) accumulates tile (m, j) over the kc tiles of the chunk (iter_out).
  // Bias:  uop (m, j) adds bias tile j (kept after the mb*nc result tiles).
  VtaProgramBuilder p;
  struct Kernel {
    std::uint32_t gemm_bgn, bias_bgn, len;
  };
  std::vector<VtaUop> uops;
  auto kernel = [&](std::uint32_t kc, std::uint32_t nc) {
    Kernel kern{std::uint32_t(uops.size()), 0, gc.mb * nc};
    for (std::uint32_t mm = 0; mm < gc.mb; ++mm)
      for (std::uint32_t j = 0; j < nc; ++j) uops.push_back({mm * nc + j, mm * kc, j * kc});
    kern.bias_bgn = std::uint32_t(uops.size());
    for (std::uint32_t mm = 0; mm < gc.mb; ++mm)
      for (std::uint32_t j = 0; j < nc; ++j) uops.push_back({mm * nc + j, gc.mb * nc + j, 0});
    return kern;
  };
  std::vector<std::vector<Kernel>> kernels;  // [n chunk][k chunk]
  for (std::uint32_t n0 = 0; n0 < gc.nb; n0 += gc.n_chunk) {
    kernels.emplace_back();
    for (std::uint32_t k0 = 0; k0 < gc.kb; k0 += gc.k_chunk)
      kernels.back().push_back(kernel(std::min(gc.k_chunk, gc.kb - k0), std::min(gc.n_chunk, gc.nb - n0)));
  }
  const std::size_t uop_off = g.dram.put_uops(uops);
  p.load(VtaMemType::uop, {.dram_base = std::uint32_t(uop_off / 4), .x_size = std::uint32_t(uops.size())});

  bool first_load = true;
  std::size_t ni = 0;
  for (std::uint32_t n0 = 0; n0 < gc.nb; n0 += gc.n_chunk, ++ni) {
    const std::uint32_t nc = std::min(gc.n_chunk, gc.nb - n0);
    const std::uint32_t tiles = gc.mb * nc;
    const Kernel& k0kern = kernels[ni][0];
    // Zero the accumulators, after the previous chunk's STORE has read them.
    p.gemm_reset({.uop_bgn = k0kern.gemm_bgn, .uop_end = k0kern.gemm_bgn + tiles}, {.pop_next = n0 > 0});
    if (gc.bias)
      p.load(VtaMemType::acc, {.sram_base = tiles, .dram_base = std::uint32_t(bias_off / ae) + n0, .x_size = nc});
    std::size_t ki = 0;
    for (std::uint32_t k0 = 0; k0 < gc.kb; k0 += gc.k_chunk, ++ki) {
      const std::uint32_t kc = std::min(gc.k_chunk, gc.kb - k0);
      p.load(VtaMemType::inp,
             {.dram_base = std::uint32_t(a_off / ie) + k0, .y_size = gc.mb, .x_size = kc, .x_stride = gc.kb},
             {.pop_next = !first_load});
      p.load(VtaMemType::wgt,
             {.dram_base = std::uint32_t(b_off / we) + n0 * gc.kb + k0, .y_size = nc, .x_size = kc, .x_stride = gc.kb},
             {.push_next = true});
      first_load = false;
      const Kernel& kern = kernels[ni][ki];
      p.gemm({.uop_bgn = kern.gemm_bgn,
              .uop_end = kern.gemm_bgn + kern.len,
              .iter_out = kc,
              .src_factor_out = 1,
              .wgt_factor_out = 1},
             {.pop_prev = true, .push_prev = true});
    }
    const VtaLoop all{
        .uop_bgn = k0kern.gemm_bgn, .uop_end = k0kern.gemm_bgn + 1, .iter_out = tiles, .dst_factor_out = 1};
    if (gc.bias) p.alu(VtaAluOp::add, {.uop_bgn = k0kern.bias_bgn, .uop_end = k0kern.bias_bgn + tiles});
    p.alu_imm(VtaAluOp::shr, gc.shift, all, {.push_next = !gc.clip});
    if (gc.clip) {
      p.alu_imm(VtaAluOp::min, gc.hi, all);
      p.alu_imm(VtaAluOp::max, gc.lo, all, {.push_next = true});
    }
    p.store({.dram_base = std::uint32_t(g.c_off / oe) + n0, .y_size = gc.mb, .x_size = nc, .x_stride = gc.nb},
            {.pop_prev = true, .push_prev = true});
  }
  p.finish({.pop_next = true});  // wait for the last STORE
  g.prog = p.take();
  return g;
}

}  // namespace attune::test
