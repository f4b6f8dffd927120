// sim/vta_program.hpp — instruction streams, a builder for code generators, DRAM layout
// help and the disassembler.
//
// A program is the instruction stream only; micro-ops are data in DRAM, brought on chip by
// LOAD uop like on VTA. The usual shape, for a code generator:
//
//   VtaDram dram(1 << 20);
//   auto uops = dram.put_uops({{.dst_idx = 0, .src_idx = 0, .wgt_idx = 0}, ...});
//   auto a = dram.alloc(cfg.inp_elem_bytes() * n, cfg.inp_elem_bytes());
//   VtaProgramBuilder b;
//   b.load(VtaMemType::uop, {.dram_base = uops / 4, .x_size = n_uops});
//   b.load(VtaMemType::inp, {.dram_base = a / cfg.inp_elem_bytes(), ...}, {.push_next = true});
//   b.gemm({.uop_end = n_uops, .iter_out = 4, ...}, {.pop_prev = true});
//   b.finish();
//   run_vta(b.program(), dram.bytes(), cfg);
//
// Tests: tests/sim/vta_isa_test.cpp (builder, disassembler), the other tests/sim files use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "sim/vta_isa.hpp"

namespace attune {

struct VtaProgram {
  std::vector<VtaInsn> insns;
};

// The DMA part of a LOAD/STORE (units: buffer entries; see vta_isa.hpp).
struct VtaDma {
  std::uint32_t sram_base = 0;
  std::uint32_t dram_base = 0;
  std::uint32_t y_size = 1;
  std::uint32_t x_size = 1;
  std::uint32_t x_stride = 0;  // 0 means x_size (rows packed back to back)
  std::uint32_t y_pad_0 = 0;
  std::uint32_t y_pad_1 = 0;
  std::uint32_t x_pad_0 = 0;
  std::uint32_t x_pad_1 = 0;
};

// The loop part of a GEMM/ALU.
struct VtaLoop {
  std::uint32_t uop_bgn = 0;
  std::uint32_t uop_end = 1;
  std::uint32_t iter_out = 1;
  std::uint32_t iter_in = 1;
  std::uint32_t dst_factor_out = 0;
  std::uint32_t dst_factor_in = 0;
  std::uint32_t src_factor_out = 0;
  std::uint32_t src_factor_in = 0;
  std::uint32_t wgt_factor_out = 0;
  std::uint32_t wgt_factor_in = 0;
};

// Appends instructions; each call returns the instruction so a caller can still adjust it.
// It checks nothing: the simulator is the judge of validity (so invalid programs can be built
// on purpose, e.g. by tests and by a search that learns what is invalid).
class VtaProgramBuilder {
 public:
  VtaInsn& load(VtaMemType mem, const VtaDma& dma, VtaDeps deps = {});
  VtaInsn& store(const VtaDma& dma, VtaDeps deps = {});  // memory type out
  VtaInsn& gemm(const VtaLoop& loop, VtaDeps deps = {});
  VtaInsn& gemm_reset(const VtaLoop& loop, VtaDeps deps = {});
  VtaInsn& alu(VtaAluOp op, const VtaLoop& loop, VtaDeps deps = {});  // tensor operand
  VtaInsn& alu_imm(VtaAluOp op, std::int32_t imm, const VtaLoop& loop, VtaDeps deps = {});
  VtaInsn& finish(VtaDeps deps = {});

  const VtaProgram& program() const { return prog_; }
  VtaProgram take() { return std::move(prog_); }
  std::size_t size() const { return prog_.insns.size(); }

 private:
  VtaInsn& push(VtaInsn insn);
  VtaProgram prog_;
};

// A caller-owned DRAM image with a bump allocator. Offsets are bytes from the region start.
class VtaDram {
 public:
  explicit VtaDram(std::size_t size_bytes) : bytes_(size_bytes, 0) {}
  // Throws attune::Error when the region is full; `align` must be a power of two.
  std::size_t alloc(std::size_t size_bytes, std::size_t align = 64);
  // Allocates and writes encoded micro-ops (4-byte aligned); returns their byte offset.
  std::size_t put_uops(std::span<const VtaUop> uops);
  std::size_t put_uops(std::initializer_list<VtaUop> uops) {
    return put_uops(std::span<const VtaUop>(uops.begin(), uops.size()));
  }
  std::span<std::uint8_t> bytes() { return bytes_; }
  std::span<const std::uint8_t> bytes() const { return bytes_; }
  std::size_t used() const { return top_; }

 private:
  std::vector<std::uint8_t> bytes_;
  std::size_t top_ = 0;
};

// Writes encoded micro-ops at a byte offset of a DRAM region (throws attune::Error past its end).
void write_uops(std::span<std::uint8_t> dram, std::size_t byte_offset, std::span<const VtaUop> uops);

// One line per instruction, e.g.
//   "LOAD inp sram=0 dram=64 y=4 x=8 stride=16 pad=(1,1,0,0) [push_next]"
std::string disassemble(const VtaInsn& insn);
// Numbered lines, one per instruction.
std::string disassemble(const VtaProgram& prog);
std::string disassemble(const VtaUop& uop);  // "uop dst=3 src=1 wgt=7"

}  // namespace attune
