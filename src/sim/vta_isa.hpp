// sim/vta_isa.hpp — the VTA-style instruction set: 128-bit instructions, 32-bit micro-ops.
//
// Instructions are plain structs (one flat struct: the fields of the opcode that does not use
// them stay zero), so a code generator can fill them directly; encode_insn()/decode_insn()
// convert to and from the two 64-bit words of the hardware format. The bit layout is VTA's
// default one (hw_spec.h, 1x16x16 core), fixed for every config:
//
//   LOAD/STORE  w0: opcode:3 deps:4 memory_type:3 sram_base:16 dram_base:32 (6 unused)
//               w1: y_size:16 x_size:16 x_stride:16 y_pad_0:4 y_pad_1:4 x_pad_0:4 x_pad_1:4
//   GEMM        w0: opcode:3 deps:4 reset:1 uop_bgn:13 uop_end:14 iter_out:14 iter_in:14
//               w1: dst_factor_out:11 dst_factor_in:11 src_factor_out:11 src_factor_in:11
//                   wgt_factor_out:10 wgt_factor_in:10
//   ALU         w0: as GEMM
//               w1: dst/src factors as GEMM, alu_opcode:3 use_imm:1 imm:16 (signed)
//   FINISH      w0: opcode:3 deps:4
//   micro-op    dst_idx:11 src_idx:11 wgt_idx:10  (accumulator / input / weight entries)
//   deps order  pop_prev, pop_next, push_prev, push_next (low bit first)
//
// With a bigger config (extended.json) the fixed widths still apply: entries past a micro-op
// field's range are reached through the loop factors and sram_base, as VTA's encoding does not
// grow with the buffers. A field that does not fit is an encode error and a runtime error.
//
// Units: sram_base, dram_base, x_size, x_stride count buffer entries (whole tiles), so a DRAM
// byte address is dram_base * (entry bytes of the memory type). Tests: tests/sim/vta_isa_test.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attune {

enum class VtaOpcode : std::uint8_t { load = 0, store = 1, gemm = 2, finish = 3, alu = 4 };
enum class VtaMemType : std::uint8_t { uop = 0, wgt = 1, inp = 2, acc = 3, out = 4 };
enum class VtaAluOp : std::uint8_t { min = 0, max = 1, add = 2, shr = 3, mul = 4 };

inline constexpr int kVtaNumOpcodes = 5;
inline constexpr int kVtaNumMemTypes = 5;

// Dependence tokens: "prev"/"next" are the neighbouring modules in load -> compute -> store.
struct VtaDeps {
  bool pop_prev = false;
  bool pop_next = false;
  bool push_prev = false;
  bool push_next = false;
  bool operator==(const VtaDeps&) const = default;
};

struct VtaInsn {
  VtaOpcode opcode = VtaOpcode::finish;
  VtaDeps deps;
  // LOAD / STORE: 2D strided DMA. DRAM rows y in [0, y_size), entries x in [0, x_size) at
  // dram_base + y * x_stride + x land in SRAM rows of width x_pad_0 + x_size + x_pad_1 from
  // sram_base, after y_pad_0 zero rows and before y_pad_1 zero rows.
  VtaMemType mem = VtaMemType::inp;
  std::uint32_t sram_base = 0;
  std::uint32_t dram_base = 0;
  std::uint32_t y_size = 0;
  std::uint32_t x_size = 0;
  std::uint32_t x_stride = 0;
  std::uint32_t y_pad_0 = 0;
  std::uint32_t y_pad_1 = 0;
  std::uint32_t x_pad_0 = 0;
  std::uint32_t x_pad_1 = 0;
  // GEMM / ALU: for y < iter_out, x < iter_in, uop in [uop_bgn, uop_end):
  //   dst = uop.dst_idx + y*dst_factor_out + x*dst_factor_in   (likewise src, wgt)
  bool reset = false;  // write zeros to dst instead of computing
  std::uint32_t uop_bgn = 0;
  std::uint32_t uop_end = 0;
  std::uint32_t iter_out = 0;
  std::uint32_t iter_in = 0;
  std::uint32_t dst_factor_out = 0;
  std::uint32_t dst_factor_in = 0;
  std::uint32_t src_factor_out = 0;
  std::uint32_t src_factor_in = 0;
  std::uint32_t wgt_factor_out = 0;  // GEMM only
  std::uint32_t wgt_factor_in = 0;   // GEMM only
  // ALU only: dst = op(dst, use_imm ? imm : acc[src]).
  VtaAluOp alu_op = VtaAluOp::min;
  bool use_imm = false;
  std::int32_t imm = 0;  // 16-bit signed in the encoding

  bool operator==(const VtaInsn&) const = default;
};

struct VtaUop {
  std::uint32_t dst_idx = 0;  // accumulator entry
  std::uint32_t src_idx = 0;  // input entry (GEMM) or accumulator entry (ALU)
  std::uint32_t wgt_idx = 0;  // weight entry (GEMM)
  bool operator==(const VtaUop&) const = default;
};

using VtaInsnWords = std::array<std::uint64_t, 2>;

// The first field of `insn` that does not fit its encoding, as "field=value exceeds N bits";
// nullopt when it encodes. Also rejects unknown opcode/memory type/ALU op values.
std::optional<std::string> vta_encoding_error(const VtaInsn& insn);
std::optional<std::string> vta_encoding_error(const VtaUop& uop);

// Throw attune::Error with vta_encoding_error's reason.
VtaInsnWords encode_insn(const VtaInsn& insn);
std::uint32_t encode_uop(const VtaUop& uop);
// Throws attune::Error for an unknown opcode, memory type or ALU op.
VtaInsn decode_insn(const VtaInsnWords& words);
VtaUop decode_uop(std::uint32_t word);

std::string_view vta_opcode_name(VtaOpcode op);  // "LOAD", ...; "?" when unknown
std::string_view vta_mem_name(VtaMemType m);     // "uop", "wgt", "inp", "acc", "out"
std::string_view vta_alu_name(VtaAluOp op);      // "min", "max", "add", "shr", "mul"

}  // namespace attune
