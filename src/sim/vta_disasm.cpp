// Human-readable listing of VTA instructions and micro-ops (see sim/vta_program.hpp).
#include <sstream>

#include "sim/vta_program.hpp"

namespace attune {

namespace {

void put_deps(std::ostream& os, const VtaDeps& d) {
  if (!(d.pop_prev || d.pop_next || d.push_prev || d.push_next)) return;
  os << " [";
  const char* sep = "";
  auto flag = [&](bool on, const char* name) {
    if (!on) return;
    os << sep << name;
    sep = " ";
  };
  flag(d.pop_prev, "pop_prev");
  flag(d.pop_next, "pop_next");
  flag(d.push_prev, "push_prev");
  flag(d.push_next, "push_next");
  os << "]";
}

void put_loop(std::ostream& os, const VtaInsn& in, bool gemm) {
  os << " uop=[" << in.uop_bgn << "," << in.uop_end << ") iter=(" << in.iter_out << "," << in.iter_in << ") dst=("
     << in.dst_factor_out << "," << in.dst_factor_in << ") src=(" << in.src_factor_out << "," << in.src_factor_in
     << ")";
  if (gemm) os << " wgt=(" << in.wgt_factor_out << "," << in.wgt_factor_in << ")";
}

}  // namespace

std::string disassemble(const VtaInsn& in) {
  std::ostringstream os;
  os << vta_opcode_name(in.opcode);
  switch (in.opcode) {
    case VtaOpcode::load:
    case VtaOpcode::store:
      os << " " << vta_mem_name(in.mem) << " sram=" << in.sram_base << " dram=" << in.dram_base << " y=" << in.y_size
         << " x=" << in.x_size << " stride=" << in.x_stride;
      if (in.y_pad_0 || in.y_pad_1 || in.x_pad_0 || in.x_pad_1)
        os << " pad=(" << in.y_pad_0 << "," << in.y_pad_1 << "," << in.x_pad_0 << "," << in.x_pad_1 << ")";
      break;
    case VtaOpcode::gemm:
      if (in.reset) os << " reset";
      put_loop(os, in, true);
      break;
    case VtaOpcode::alu:
      os << " " << vta_alu_name(in.alu_op);
      if (in.reset)
        os << " reset";
      else if (in.use_imm)
        os << " imm=" << in.imm;
      put_loop(os, in, false);
      break;
    case VtaOpcode::finish: break;
    default: os << "(" << static_cast<unsigned>(in.opcode) << ")";
  }
  put_deps(os, in.deps);
  return os.str();
}

std::string disassemble(const VtaProgram& prog) {
  std::ostringstream os;
  for (std::size_t i = 0; i < prog.insns.size(); ++i) os << i << ": " << disassemble(prog.insns[i]) << "\n";
  return os.str();
}

std::string disassemble(const VtaUop& u) {
  std::ostringstream os;
  os << "uop dst=" << u.dst_idx << " src=" << u.src_idx << " wgt=" << u.wgt_idx;
  return os.str();
}

}  // namespace attune
