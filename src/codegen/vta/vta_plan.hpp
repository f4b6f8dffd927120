// Internal to the VTA backend: the tile geometry a knob config stands for, and the compile-time
// rules it must pass (vta_plan.cpp). The emitter (vta_emit.cpp) and the DRAM image
// (vta_image.cpp) read the same plan, so layout and program cannot disagree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "codegen/codegen_vta.hpp"

namespace attune::vta_detail {

struct Plan {
  VtaProblem p;
  VtaKnobs k;
  // Extents in GEMM-core blocks.
  std::int64_t nb = 0, cb = 0, kb = 0;
  // One thread's tile: tb batch blocks x tco channel blocks x th rows x tw columns of output;
  // per reduction chunk tci input-channel blocks.
  std::int64_t tb = 1, th = 1, tw = 1, tci = 1, tco = 1;
  std::int64_t in_th = 1, in_tw = 1;  // input rows/columns one tile reads (halo included)
  std::int64_t plane = 1;             // input entries of one (batch block, channel block)
  // Entries per thread in each buffer, and micro-ops per thread (one shared reset/ALU
  // micro-op, then the GEMM kernel).
  std::int64_t inp_tile = 0, wgt_tile = 0, acc_tile = 0, kernel_uops = 0, thread_uops = 0;
  std::int64_t vt_h = 1, vt_oc = 1, threads = 1;
  // The loop nest: tiles along each axis; the row axis (what h_nthread threads over) is the
  // batch for GEMM, the output rows for conv2d.
  std::int64_t b_tiles = 1, h_tiles = 1, w_tiles = 1, co_tiles = 1, chunks = 1;
  bool row_is_batch = false;
  std::int64_t groups() const { return b_tiles * h_tiles * w_tiles * co_tiles / threads; }
  std::int64_t total_uops() const { return threads * thread_uops; }
};

struct Refusal {
  std::string kind;  // "innermost_padding", ...
  std::string message;
};

// The geometry; throws Error when a tile knob does not divide its axis (a caller's mistake:
// the space only offers divisors).
Plan make_plan(const VtaProblem& p, const VtaKnobs& k, const VtaConfig& cfg);
// The first compile-time rule the plan breaks, in the order vta.build meets them.
std::optional<Refusal> check_plan(const Plan& plan, const VtaConfig& cfg);

}  // namespace attune::vta_detail

namespace attune::vta_detail {

// Byte offsets of every DRAM region the program touches (vta_image.cpp).
VtaImage make_image(const Plan& plan, const VtaConfig& cfg);

}  // namespace attune::vta_detail
