// Internal to the VTA simulator: the data movement and arithmetic of each instruction.
// Callers have passed vta_check first; nothing here tests a bound.
#pragma once

#include <cstdint>
#include <span>

#include "sim/vta_isa.hpp"
#include "vta_state.hpp"

namespace attune::vta_detail {

// LOAD of any memory type. With data == false (timing mode) only micro-op loads move bytes.
void exec_load(const VtaInsn& in, const VtaConfig& cfg, std::span<const std::uint8_t> dram, VtaSram& sram, bool data);
// STORE: accumulator entries truncated to int8 (the out buffer), written to DRAM.
void exec_store(const VtaInsn& in, const VtaConfig& cfg, std::span<std::uint8_t> dram, const VtaSram& sram);
void exec_gemm(const VtaInsn& in, const VtaConfig& cfg, VtaSram& sram);
void exec_alu(const VtaInsn& in, const VtaConfig& cfg, VtaSram& sram);

}  // namespace attune::vta_detail
