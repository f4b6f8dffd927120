// Data movement and arithmetic of VTA instructions (see vta_exec.hpp).
//
// The GEMM tile kernel is the hot loop of functional mode: for the common BLOCK_IN values it
// is instantiated with a compile-time trip count, which GCC/Clang turn into a vectorised
// int16 dot product at -O2 (operands are held widened, see VtaSram). Accumulation wraps modulo 2^32 like the hardware's
// adders (done in unsigned arithmetic: signed overflow would be undefined behaviour).
#include "vta_exec.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace attune::vta_detail {

static_assert(std::endian::native == std::endian::little,
              "DRAM images are little-endian; a big-endian host would need byte swaps here");

namespace {

inline std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// Writes a LOAD's rows into a buffer of `Elem`s, `per_entry` elements per entry; `copy`
// moves n entries from DRAM bytes. Padding entries are zero.
template <class Elem, class Copy>
void load_rows(const VtaInsn& in, std::size_t entry_bytes, std::size_t per_entry, const std::uint8_t* dram, Elem* base,
               Copy copy) {
  const std::size_t width = std::size_t(in.x_pad_0) + in.x_size + in.x_pad_1;
  const std::size_t rows = std::size_t(in.y_pad_0) + in.y_size + in.y_pad_1;
  for (std::size_t r = 0; r < rows; ++r) {
    Elem* row = base + (in.sram_base + r * width) * per_entry;
    if (r < in.y_pad_0 || r >= in.y_pad_0 + in.y_size) {
      std::fill_n(row, width * per_entry, Elem(0));
      continue;
    }
    const std::size_t src = (std::size_t(in.dram_base) + (r - in.y_pad_0) * std::size_t(in.x_stride)) * entry_bytes;
    std::fill_n(row, in.x_pad_0 * per_entry, Elem(0));
    copy(row + in.x_pad_0 * per_entry, dram + src, in.x_size);
    std::fill_n(row + (in.x_pad_0 + in.x_size) * per_entry, in.x_pad_1 * per_entry, Elem(0));
  }
}

// acc[b][o] += dot(inp[b][:], wgt[o][:]) for one BATCH x BLOCK_IN x BLOCK_OUT step.
template <std::uint32_t BI>
void gemm_tile_fixed(std::int32_t* acc, const std::int16_t* inp, const std::int16_t* wgt, std::uint32_t batch,
                     std::uint32_t block_out) {
  for (std::uint32_t b = 0; b < batch; ++b) {
    const std::int16_t* a = inp + b * BI;
    std::int32_t* c = acc + b * block_out;
    for (std::uint32_t o = 0; o < block_out; ++o) {
      const std::int16_t* w = wgt + o * BI;
      std::int32_t s = 0;  // |s| <= BI * 2^14: no overflow for BLOCK_IN <= 64
      for (std::uint32_t i = 0; i < BI; ++i) s += std::int32_t(a[i]) * std::int32_t(w[i]);
      c[o] = wrap_add(c[o], s);
    }
  }
}

void gemm_tile_any(std::int32_t* acc, const std::int16_t* inp, const std::int16_t* wgt, std::uint32_t batch,
                   std::uint32_t block_out, std::uint32_t block_in) {
  for (std::uint32_t b = 0; b < batch; ++b) {
    for (std::uint32_t o = 0; o < block_out; ++o) {
      std::int32_t s = 0;
      for (std::uint32_t i = 0; i < block_in; ++i)
        s += std::int32_t(inp[b * block_in + i]) * std::int32_t(wgt[o * block_in + i]);
      acc[b * block_out + o] = wrap_add(acc[b * block_out + o], s);
    }
  }
}

// Runs `step(dst, src, wgt)` with entry indices for every iteration, in hardware order.
template <class Step>
void for_each_iteration(const VtaInsn& in, const VtaSram& s, Step&& step) {
  for (std::uint32_t y = 0; y < in.iter_out; ++y) {
    for (std::uint32_t x = 0; x < in.iter_in; ++x) {
      const std::uint32_t d0 = y * in.dst_factor_out + x * in.dst_factor_in;
      const std::uint32_t s0 = y * in.src_factor_out + x * in.src_factor_in;
      const std::uint32_t w0 = y * in.wgt_factor_out + x * in.wgt_factor_in;
      for (std::uint32_t k = in.uop_bgn; k < in.uop_end; ++k) {
        const VtaUop u = decode_uop(s.uop[k]);
        step(u.dst_idx + d0, u.src_idx + s0, u.wgt_idx + w0);
      }
    }
  }
}

template <std::uint32_t BI>
void gemm_loop_fixed(const VtaInsn& in, const VtaConfig& c, VtaSram& s) {
  const std::uint32_t acc_n = c.batch() * c.block_out(), batch = c.batch(), bo = c.block_out();
  std::int32_t* acc = s.acc.data();
  const std::int16_t* inp = s.inp.data();
  const std::int16_t* wgt = s.wgt.data();
  for_each_iteration(in, s, [&](std::uint32_t d, std::uint32_t i, std::uint32_t w) {
    gemm_tile_fixed<BI>(acc + std::size_t(d) * acc_n, inp + std::size_t(i) * batch * BI, wgt + std::size_t(w) * bo * BI,
                        batch, bo);
  });
}

std::int32_t alu_shr(std::int32_t a, std::int32_t b) {
  // A negative amount shifts left, as on VTA; amounts of 32 and more saturate the shift.
  if (b >= 0) return a >> std::min(b, 31);
  if (b <= -32) return 0;
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) << -b);
}

template <class F>
void alu_loop(const VtaInsn& in, const VtaConfig& c, VtaSram& s, F f) {
  const std::uint32_t n = c.batch() * c.block_out();
  std::int32_t* acc = s.acc.data();
  for_each_iteration(in, s, [&](std::uint32_t d, std::uint32_t src, std::uint32_t) {
    std::int32_t* dst = acc + std::size_t(d) * n;
    const std::int32_t* rhs = acc + std::size_t(src) * n;
    if (in.use_imm) {
      for (std::uint32_t e = 0; e < n; ++e) dst[e] = f(dst[e], in.imm);
    } else {
      for (std::uint32_t e = 0; e < n; ++e) dst[e] = f(dst[e], rhs[e]);
    }
  });
}

void reset_loop(const VtaInsn& in, const VtaConfig& c, VtaSram& s) {
  const std::uint32_t n = c.batch() * c.block_out();
  for_each_iteration(in, s, [&](std::uint32_t d, std::uint32_t, std::uint32_t) {
    std::fill_n(s.acc.data() + std::size_t(d) * n, n, 0);
  });
}

}  // namespace

void exec_load(const VtaInsn& in, const VtaConfig& cfg, std::span<const std::uint8_t> dram, VtaSram& sram, bool data) {
  if (in.x_size == 0 || in.y_size == 0) return;
  if (!data && in.mem != VtaMemType::uop) return;
  auto raw = [](std::size_t entry_bytes) {
    return [entry_bytes](auto* dst, const std::uint8_t* src, std::size_t n) { std::memcpy(dst, src, n * entry_bytes); };
  };
  auto widen = [](std::size_t entry_bytes) {
    return [entry_bytes](std::int16_t* dst, const std::uint8_t* src, std::size_t n) {
      for (std::size_t i = 0; i < n * entry_bytes; ++i) dst[i] = static_cast<std::int8_t>(src[i]);
    };
  };
  const std::uint8_t* d = dram.data();
  switch (in.mem) {
    case VtaMemType::uop: return load_rows(in, cfg.uop_elem_bytes(), 1, d, sram.uop.data(), raw(cfg.uop_elem_bytes()));
    case VtaMemType::acc:
      return load_rows(in, cfg.acc_elem_bytes(), cfg.acc_elem_bytes() / 4, d, sram.acc.data(),
                       raw(cfg.acc_elem_bytes()));
    case VtaMemType::inp:
      return load_rows(in, cfg.inp_elem_bytes(), cfg.inp_elem_bytes(), d, sram.inp.data(), widen(cfg.inp_elem_bytes()));
    case VtaMemType::wgt:
      return load_rows(in, cfg.wgt_elem_bytes(), cfg.wgt_elem_bytes(), d, sram.wgt.data(), widen(cfg.wgt_elem_bytes()));
    case VtaMemType::out: return;  // refused by check_static
  }
}

void exec_store(const VtaInsn& in, const VtaConfig& cfg, std::span<std::uint8_t> dram, const VtaSram& sram) {
  const std::size_t n = cfg.out_elem_bytes();
  for (std::size_t y = 0; y < in.y_size; ++y) {
    for (std::size_t x = 0; x < in.x_size; ++x) {
      const std::int32_t* acc = sram.acc.data() + (in.sram_base + y * in.x_size + x) * n;
      std::uint8_t* out = dram.data() + (in.dram_base + y * in.x_stride + x) * n;
      // The out buffer keeps the low 8 bits of each accumulator (no saturation: clipping is
      // the program's job, with ALU min/max).
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(acc[i]);
    }
  }
}

void exec_gemm(const VtaInsn& in, const VtaConfig& cfg, VtaSram& sram) {
  if (in.reset) return reset_loop(in, cfg, sram);
  switch (cfg.block_in()) {
    case 8: return gemm_loop_fixed<8>(in, cfg, sram);
    case 16: return gemm_loop_fixed<16>(in, cfg, sram);
    case 32: return gemm_loop_fixed<32>(in, cfg, sram);
    case 64: return gemm_loop_fixed<64>(in, cfg, sram);
    default: break;
  }
  const std::uint32_t bi = cfg.block_in(), bo = cfg.block_out(), b = cfg.batch();
  for_each_iteration(in, sram, [&](std::uint32_t d, std::uint32_t i, std::uint32_t w) {
    gemm_tile_any(sram.acc.data() + std::size_t(d) * b * bo, sram.inp.data() + std::size_t(i) * b * bi,
                  sram.wgt.data() + std::size_t(w) * bo * bi, b, bo, bi);
  });
}

void exec_alu(const VtaInsn& in, const VtaConfig& cfg, VtaSram& sram) {
  if (in.reset) return reset_loop(in, cfg, sram);
  switch (in.alu_op) {
    case VtaAluOp::min: return alu_loop(in, cfg, sram, [](std::int32_t a, std::int32_t b) { return std::min(a, b); });
    case VtaAluOp::max: return alu_loop(in, cfg, sram, [](std::int32_t a, std::int32_t b) { return std::max(a, b); });
    case VtaAluOp::add: return alu_loop(in, cfg, sram, wrap_add);
    case VtaAluOp::shr: return alu_loop(in, cfg, sram, alu_shr);
    case VtaAluOp::mul:
      return alu_loop(in, cfg, sram, [](std::int32_t a, std::int32_t b) {
        return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
      });
  }
}

}  // namespace attune::vta_detail
