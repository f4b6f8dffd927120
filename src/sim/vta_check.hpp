// Internal to the VTA simulator: everything that makes an instruction fault, checked before it
// runs so the data kernels (vta_exec) can run without a single bounds test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "sim/vta_program.hpp"
#include "vta_state.hpp"

namespace attune::vta_detail {

// The program as a whole: non-empty, exactly one FINISH and it comes last.
// `at` receives the offending instruction's index.
Check check_program(const VtaProgram& prog, std::int64_t& at);

// What needs no machine state: encodable fields, a memory type the opcode allows, token flags
// the executing module can honour, no padding on STORE, uop_bgn <= uop_end.
Check check_static(const VtaInsn& in);

// LOAD/STORE: the SRAM span inside its buffer, the DRAM span inside the region.
Check check_dma(const VtaInsn& in, const VtaConfig& cfg, std::size_t dram_bytes);

// GEMM/ALU against the micro-ops now in the buffer: the kernel inside the micro-op buffer,
// every index the loops reach inside its buffer, no accumulator entry written twice in a row.
Check check_loop(const VtaInsn& in, const VtaConfig& cfg, std::span<const std::uint32_t> uop_buf);

}  // namespace attune::vta_detail
