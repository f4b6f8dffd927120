// sim/vta_sim.hpp — run a VTA-style program: bit-exact data and a cycle count.
//
// run_vta() executes an instruction stream against a caller-owned DRAM region. The load,
// compute and store modules run concurrently, ordered only by the dependence-token queues
// l2g (load->compute), g2l, g2s (compute->store) and s2g, as on VTA:
//   load:    LOAD inp/wgt            pop_next=g2l  push_next=l2g
//   compute: LOAD uop/acc, GEMM, ALU, FINISH
//                                    pop_prev=l2g  pop_next=s2g  push_prev=g2l  push_next=g2s
//   store:   STORE out               pop_prev=g2s  push_prev=s2g
// An instruction starts when its module is free and every token it pops has arrived; its
// pushes arrive when it ends. Functional mode moves and computes the data (int8 x int8 ->
// int32, ALU on int32, STORE truncates the accumulator to int8); timing mode moves only the
// micro-ops (they steer the loops) and gives the same cycles and the same errors, much faster.
//
// Every failure the hardware would hit (a transfer past a buffer's end, a micro-op kernel past
// the micro-op buffer, DMA outside the DRAM region, the same accumulator entry written by two
// consecutive loop iterations, a token deadlock, a malformed instruction) stops the program
// and comes back as status runtime_error with a message; run_vta never throws. (An invalid
// hand-built VtaConfig also comes back as runtime_error, with error_kind none.) run_vta keeps
// no global state: runs on different threads are independent.
// Tests: tests/sim/*_test.cpp; speed: bench/vta_sim_speed.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ir/measure.hpp"
#include "sim/vta_config.hpp"
#include "sim/vta_isa.hpp"
#include "sim/vta_program.hpp"

namespace attune {

enum class VtaMode : std::uint8_t { functional, timing };

enum class VtaErrorKind : std::uint8_t {
  none,
  bad_insn,           // malformed: unknown opcode, field too wide, token to a missing module...
  buffer_overflow,    // LOAD/STORE/GEMM/ALU touches an entry past the end of an on-chip buffer
  uop_overflow,       // a micro-op kernel or a micro-op load past the micro-op buffer
  dram_out_of_range,  // DMA outside the DRAM region
  acc_hazard,         // the same accumulator entry written in consecutive cycles
  deadlock,           // no module can proceed: each waits for a token that never comes
};
std::string_view vta_error_kind_name(VtaErrorKind k);

struct VtaResult {
  Status status = Status::ok;  // ok or runtime_error
  VtaErrorKind error_kind = VtaErrorKind::none;
  std::string error;             // empty when ok; names the instruction and the fault
  std::int64_t error_insn = -1;  // index of the faulting instruction, -1 when none

  // Cycles until every module drained (up to the fault when not ok).
  std::uint64_t total_cycles = 0;
  std::uint64_t load_busy_cycles = 0;
  std::uint64_t compute_busy_cycles = 0;
  std::uint64_t store_busy_cycles = 0;

  std::array<std::uint64_t, kVtaNumOpcodes> insn_count{};  // executed, indexed by VtaOpcode
  std::uint64_t uops_loaded = 0;                           // micro-ops brought on chip by LOAD uop
  std::uint64_t gemm_uop_iters = 0;                        // micro-op iterations run by GEMM (reset ones included)
  std::uint64_t alu_uop_iters = 0;                         // micro-op iterations run by ALU
  std::uint64_t macs = 0;                                  // int8 multiply-accumulates (non-reset GEMM)
  std::array<std::uint64_t, kVtaNumMemTypes> dma_bytes{};  // DRAM bytes, indexed by VtaMemType

  bool ok() const { return status == Status::ok; }
  std::uint64_t count(VtaOpcode op) const { return insn_count[static_cast<int>(op)]; }
  std::uint64_t bytes(VtaMemType m) const { return dma_bytes[static_cast<int>(m)]; }
};

// `dram` is the whole DRAM region the program may touch; it is read by LOADs and written by
// STOREs (in timing mode only micro-ops are read and nothing is written).
VtaResult run_vta(const VtaProgram& prog, std::span<std::uint8_t> dram, const VtaConfig& cfg,
                  VtaMode mode = VtaMode::functional);

}  // namespace attune
