// Internal to the VTA simulator: how long each instruction keeps its module busy.
// Every constant comes from VtaConfig::timing (see sim/vta_config.hpp for the model).
#pragma once

#include <cstdint>

#include "sim/vta_config.hpp"
#include "sim/vta_isa.hpp"

namespace attune::vta_detail {

// One DRAM channel shared by the three modules: transfers serialise on it.
struct DramChannel {
  std::uint64_t free_at = 0;
};

// Bytes a LOAD/STORE moves over DRAM (padding is generated on chip and moves none).
std::uint64_t dma_bytes(const VtaInsn& in, const VtaConfig& cfg);

// End time of a LOAD/STORE issued at `start`; reserves the channel for its data phase.
std::uint64_t dma_end(const VtaInsn& in, const VtaConfig& cfg, std::uint64_t start, DramChannel& ch);

// Micro-op iterations of a GEMM/ALU: iter_out * iter_in * (uop_end - uop_bgn).
std::uint64_t loop_iters(const VtaInsn& in);

// Cycles of a GEMM, ALU or FINISH.
std::uint64_t compute_cycles(const VtaInsn& in, const VtaConfig& cfg);

}  // namespace attune::vta_detail
