// Internal to the VTA simulator: on-chip buffers and the fault record every check returns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/vta_config.hpp"
#include "sim/vta_sim.hpp"

namespace attune::vta_detail {

// The three modules that run concurrently.
enum class Module : std::uint8_t { load = 0, compute = 1, store = 2 };

struct Fault {
  VtaErrorKind kind = VtaErrorKind::bad_insn;
  std::string message;
};
using Check = std::optional<Fault>;

// Buffers are zero at power-up. In timing mode only the micro-op buffer exists: micro-ops
// decide the loop bounds and the hazards, the data decides nothing about time.
// The int8 input and weight buffers are held sign-extended to int16: LOAD widens once, and
// the GEMM inner loop becomes an int16 dot product that x86-64's baseline SSE2 (pmaddwd)
// runs about twice as fast as int8 -> int32 widening on every step.
struct VtaSram {
  std::vector<std::uint32_t> uop;
  std::vector<std::int16_t> inp;
  std::vector<std::int16_t> wgt;
  std::vector<std::int32_t> acc;

  VtaSram(const VtaConfig& cfg, bool with_data) : uop(cfg.uop_depth(), 0) {
    if (!with_data) return;
    inp.assign(std::size_t(cfg.inp_depth()) * cfg.inp_elem_bytes(), 0);
    wgt.assign(std::size_t(cfg.wgt_depth()) * cfg.wgt_elem_bytes(), 0);
    acc.assign(std::size_t(cfg.acc_depth()) * cfg.batch() * cfg.block_out(), 0);
  }
};

// Which module executes an instruction (VTA's fetch stage routes by opcode and memory type).
inline Module module_of(const VtaInsn& in) {
  if (in.opcode == VtaOpcode::load && (in.mem == VtaMemType::inp || in.mem == VtaMemType::wgt)) return Module::load;
  if (in.opcode == VtaOpcode::store) return Module::store;
  return Module::compute;
}

}  // namespace attune::vta_detail
