// The instruction builder and the DRAM image helper (see sim/vta_program.hpp).
#include <cstring>
#include <sstream>

#include "ir/error.hpp"
#include "sim/vta_program.hpp"

namespace attune {

namespace {

VtaInsn mem_insn(VtaOpcode op, VtaMemType mem, const VtaDma& d, VtaDeps deps) {
  VtaInsn in;
  in.opcode = op;
  in.deps = deps;
  in.mem = mem;
  in.sram_base = d.sram_base;
  in.dram_base = d.dram_base;
  in.y_size = d.y_size;
  in.x_size = d.x_size;
  in.x_stride = d.x_stride == 0 ? d.x_size : d.x_stride;
  in.y_pad_0 = d.y_pad_0;
  in.y_pad_1 = d.y_pad_1;
  in.x_pad_0 = d.x_pad_0;
  in.x_pad_1 = d.x_pad_1;
  return in;
}

VtaInsn loop_insn(VtaOpcode op, const VtaLoop& l, VtaDeps deps) {
  VtaInsn in;
  in.opcode = op;
  in.deps = deps;
  in.uop_bgn = l.uop_bgn;
  in.uop_end = l.uop_end;
  in.iter_out = l.iter_out;
  in.iter_in = l.iter_in;
  in.dst_factor_out = l.dst_factor_out;
  in.dst_factor_in = l.dst_factor_in;
  in.src_factor_out = l.src_factor_out;
  in.src_factor_in = l.src_factor_in;
  if (op == VtaOpcode::gemm) {
    in.wgt_factor_out = l.wgt_factor_out;
    in.wgt_factor_in = l.wgt_factor_in;
  }
  return in;
}

}  // namespace

VtaInsn& VtaProgramBuilder::push(VtaInsn insn) {
  prog_.insns.push_back(insn);
  return prog_.insns.back();
}

VtaInsn& VtaProgramBuilder::load(VtaMemType mem, const VtaDma& dma, VtaDeps deps) {
  return push(mem_insn(VtaOpcode::load, mem, dma, deps));
}

VtaInsn& VtaProgramBuilder::store(const VtaDma& dma, VtaDeps deps) {
  return push(mem_insn(VtaOpcode::store, VtaMemType::out, dma, deps));
}

VtaInsn& VtaProgramBuilder::gemm(const VtaLoop& loop, VtaDeps deps) {
  return push(loop_insn(VtaOpcode::gemm, loop, deps));
}

VtaInsn& VtaProgramBuilder::gemm_reset(const VtaLoop& loop, VtaDeps deps) {
  VtaInsn& in = push(loop_insn(VtaOpcode::gemm, loop, deps));
  in.reset = true;
  return in;
}

VtaInsn& VtaProgramBuilder::alu(VtaAluOp op, const VtaLoop& loop, VtaDeps deps) {
  VtaInsn& in = push(loop_insn(VtaOpcode::alu, loop, deps));
  in.alu_op = op;
  return in;
}

VtaInsn& VtaProgramBuilder::alu_imm(VtaAluOp op, std::int32_t imm, const VtaLoop& loop, VtaDeps deps) {
  VtaInsn& in = alu(op, loop, deps);
  in.use_imm = true;
  in.imm = imm;
  return in;
}

VtaInsn& VtaProgramBuilder::finish(VtaDeps deps) {
  VtaInsn in;
  in.opcode = VtaOpcode::finish;
  in.deps = deps;
  return push(in);
}

std::size_t VtaDram::alloc(std::size_t size_bytes, std::size_t align) {
  if (align == 0 || (align & (align - 1)) != 0)
    throw Error("VtaDram::alloc: alignment " + std::to_string(align) + " is not a power of two");
  const std::size_t at = (top_ + align - 1) & ~(align - 1);
  if (at > bytes_.size() || size_bytes > bytes_.size() - at) {
    std::ostringstream os;
    os << "VtaDram::alloc: " << size_bytes << " bytes do not fit the DRAM region (" << bytes_.size() << " bytes, "
       << top_ << " used)";
    throw Error(os.str());
  }
  top_ = at + size_bytes;
  return at;
}

std::size_t VtaDram::put_uops(std::span<const VtaUop> uops) {
  const std::size_t at = alloc(uops.size() * 4, 4);
  write_uops(bytes_, at, uops);
  return at;
}

void write_uops(std::span<std::uint8_t> dram, std::size_t byte_offset, std::span<const VtaUop> uops) {
  if (byte_offset > dram.size() || uops.size() * 4 > dram.size() - byte_offset)
    throw Error("write_uops: " + std::to_string(uops.size()) + " micro-ops at byte " + std::to_string(byte_offset) +
                " run past the DRAM region of " + std::to_string(dram.size()) + " bytes");
  for (std::size_t i = 0; i < uops.size(); ++i) {
    // Little-endian words, as the simulator reads them back.
    const std::uint32_t w = encode_uop(uops[i]);
    for (int b = 0; b < 4; ++b) dram[byte_offset + 4 * i + b] = std::uint8_t(w >> (8 * b));
  }
}

}  // namespace attune
