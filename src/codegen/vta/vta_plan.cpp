// Tile geometry of a VTA knob config and the compile-time rules it must pass (vta_plan.hpp).
//
// The rules are the ones vta.build enforces before any instruction exists: the packed layout
// must not need padding inside a block, a virtual-thread split must divide its loop, every
// tile (times the virtual threads, which each own a copy) must fit its on-chip buffer, and the
// micro-op kernels must fit the micro-op buffer. All are known from the knobs alone, so they
// are compile errors; what depends on the generated micro-op order (accumulator hazards) is
// left to the simulator, as on the real toolchain.
#include "vta_plan.hpp"

#include <sstream>

#include "ir/error.hpp"

namespace attune::vta_detail {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

void need_divides(const char* knob, std::int64_t tile, const char* axis, std::int64_t extent) {
  if (tile < 1 || extent % tile != 0)
    throw Error(std::string("VTA knob ") + knob + "=" + std::to_string(tile) + " does not divide " + axis + "=" +
                std::to_string(extent));
}

std::optional<Refusal> overflow(const char* kind, const char* buffer, std::int64_t per_thread, std::int64_t threads,
                                std::uint32_t depth) {
  if (per_thread * threads <= depth) return std::nullopt;
  std::ostringstream os;
  os << "the " << buffer << " tile needs " << per_thread << " entries x " << threads << " virtual thread"
     << (threads > 1 ? "s" : "") << " = " << per_thread * threads << ", but the " << buffer << " buffer holds "
     << depth;
  return Refusal{kind, os.str()};
}

}  // namespace

Plan make_plan(const VtaProblem& p, const VtaKnobs& k, const VtaConfig& cfg) {
  Plan s;
  s.p = p;
  s.k = k;
  s.nb = ceil_div(p.n, cfg.batch());
  s.cb = ceil_div(p.c, cfg.block_in());
  s.kb = ceil_div(p.k, cfg.block_out());
  const bool gemm = p.kind == VtaOpKind::gemm;
  s.tb = k.tile_b;
  s.th = gemm ? 1 : k.tile_h;
  s.tw = gemm ? 1 : k.tile_w;
  s.tci = k.tile_ci;
  s.tco = k.tile_co;
  need_divides("tile_b", s.tb, "N/BATCH", s.nb);
  need_divides("tile_h", s.th, "OH", p.oh);
  need_divides("tile_w", s.tw, "OW", p.ow);
  need_divides("tile_ci", s.tci, "C/BLOCK_IN", s.cb);
  need_divides("tile_co", s.tco, "K/BLOCK_OUT", s.kb);
  if ((k.oc_nthread != 1 && k.oc_nthread != 2) || (k.h_nthread != 1 && k.h_nthread != 2))
    throw Error("VTA knobs oc_nthread and h_nthread must be 1 or 2, got " + std::to_string(k.oc_nthread) + " and " +
                std::to_string(k.h_nthread));
  s.in_th = (s.th - 1) * p.stride + p.r;
  s.in_tw = (s.tw - 1) * p.stride + p.s;
  s.plane = s.in_th * s.in_tw;
  s.inp_tile = s.tb * s.tci * s.plane;
  s.wgt_tile = s.tco * s.tci * p.r * p.s;
  s.acc_tile = s.tb * s.tco * s.th * s.tw;
  s.kernel_uops = p.s * s.acc_tile;
  s.thread_uops = 1 + s.kernel_uops;
  s.vt_h = k.h_nthread;
  s.vt_oc = k.oc_nthread;
  s.threads = s.vt_h * s.vt_oc;
  s.row_is_batch = gemm;
  s.b_tiles = s.nb / s.tb;
  s.h_tiles = p.oh / s.th;
  s.w_tiles = p.ow / s.tw;
  s.co_tiles = s.kb / s.tco;
  s.chunks = s.cb / s.tci;
  return s;
}

std::optional<Refusal> check_plan(const Plan& s, const VtaConfig& cfg) {
  const VtaProblem& p = s.p;
  auto block = [&](const char* dim, std::int64_t v, const char* name, std::uint32_t b) -> std::optional<Refusal> {
    if (v % b == 0) return std::nullopt;
    return Refusal{"innermost_padding", std::string("padding on the innermost block: ") + dim + "=" +
                                            std::to_string(v) + " is not a multiple of " + name + "=" +
                                            std::to_string(b) + ", and the DMA pads only outer dimensions"};
  };
  if (auto r = block(p.kind == VtaOpKind::gemm ? "M" : "N", p.n, "BATCH", cfg.batch())) return r;
  if (auto r = block(p.kind == VtaOpKind::gemm ? "K" : "C", p.c, "BLOCK_IN", cfg.block_in())) return r;
  if (auto r = block(p.kind == VtaOpKind::gemm ? "N" : "K", p.k, "BLOCK_OUT", cfg.block_out())) return r;

  const std::int64_t row_tiles = s.row_is_batch ? s.b_tiles : s.h_tiles;
  if (row_tiles % s.vt_h != 0)
    return Refusal{"vthread_split", "h_nthread=" + std::to_string(s.vt_h) + " does not divide the " +
                                        std::to_string(row_tiles) + (s.row_is_batch ? " batch" : " row") + " tiles"};
  if (s.co_tiles % s.vt_oc != 0)
    return Refusal{"vthread_split", "oc_nthread=" + std::to_string(s.vt_oc) + " does not divide the " +
                                        std::to_string(s.co_tiles) + " output-channel tiles"};

  // The first and last tiles of a row/column must read at least one real pixel: a DMA of
  // zero rows moves nothing, its padding included.
  auto all_pad = [&](std::int64_t in_t, std::int64_t out_t, std::int64_t out, std::int64_t extent) {
    return in_t <= p.pad || (out - out_t) * p.stride - p.pad >= extent;
  };
  if (all_pad(s.in_th, s.th, p.oh, p.h) || all_pad(s.in_tw, s.tw, p.ow, p.w))
    return Refusal{"not_expressible",
                   "pad=" + std::to_string(p.pad) + " puts a whole input tile in the padding, which no DMA can load"};

  if (auto r = overflow("inp_overflow", "input", s.inp_tile, s.threads, cfg.inp_depth())) return r;
  if (auto r = overflow("wgt_overflow", "weight", s.wgt_tile, s.threads, cfg.wgt_depth())) return r;
  if (auto r = overflow("acc_overflow", "accumulator", s.acc_tile, s.threads, cfg.acc_depth())) return r;
  if (s.total_uops() > cfg.uop_depth()) {
    std::ostringstream os;
    os << "the micro-op kernels need " << s.thread_uops << " micro-ops x " << s.threads << " virtual thread"
       << (s.threads > 1 ? "s" : "") << " = " << s.total_uops() << ", but the micro-op buffer holds "
       << cfg.uop_depth();
    return Refusal{"uop_overflow", os.str()};
  }
  return std::nullopt;
}

}  // namespace attune::vta_detail
