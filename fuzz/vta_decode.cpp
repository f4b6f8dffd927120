// Fuzz target vta_decode: any 128-bit word pair decodes to a VTA instruction or an
// attune::Error (vta_isa.hpp); a decoded instruction that encodes decodes back to itself, it
// disassembles, and a short program of them runs on the simulator to a status, never a crash.
//
// Input: instructions of 16 bytes each (two little-endian 64-bit words, at most 64 of them);
// the same bytes also fill the start of the simulated DRAM, so micro-op loads read them too.
// The simulator takes its program's size on trust (attune's code generator bounds the loops
// it emits), so a program is only run when its loops and DMA rows are small, and on a config
// with small buffers (the default's 450 KiB, allocated and zeroed for every run, took most of
// the time): small buffers also put their ends within reach of the fuzzer's values.
#include <algorithm>
#include <cstring>
#include <vector>

#include "fuzz.hpp"
#include "ir/error.hpp"
#include "sim/vta_config.hpp"
#include "sim/vta_program.hpp"
#include "sim/vta_sim.hpp"

namespace {

using attune::VtaInsn;
using attune::VtaOpcode;

constexpr std::size_t kMaxInsns = 64;
constexpr std::uint64_t kMaxWork = 1 << 10;  // micro-op iterations or DMA entries per program

std::uint64_t work(const VtaInsn& in) {
  if (in.opcode == VtaOpcode::gemm || in.opcode == VtaOpcode::alu) {
    // The loops run even over an empty micro-op range.
    const std::uint64_t uops = in.uop_end > in.uop_bgn ? in.uop_end - in.uop_bgn : 1;
    return std::uint64_t{in.iter_out} * in.iter_in * uops;
  }
  if (in.opcode == VtaOpcode::load || in.opcode == VtaOpcode::store)
    return (std::uint64_t{in.y_size} + in.y_pad_0 + in.y_pad_1) * (std::uint64_t{in.x_size} + in.x_pad_0 + in.x_pad_1);
  return 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attune;
  VtaProgram prog;
  std::uint64_t total = 0;
  for (std::size_t at = 0; at + 16 <= size && prog.insns.size() < kMaxInsns; at += 16) {
    VtaInsnWords words;
    std::memcpy(words.data(), data + at, 16);
    VtaInsn insn;
    try {
      insn = decode_insn(words);
    } catch (const Error&) {
      continue;
    }
    if (!vta_encoding_error(insn)) {
      try {
        if (!(decode_insn(encode_insn(insn)) == insn))
          fuzz::finding("an encoded instruction decodes differently", disassemble(insn));
      } catch (const Error& e) {
        fuzz::finding("an instruction that encodes does not round-trip", disassemble(insn) + "\n" + e.what());
      }
    }
    (void)disassemble(insn);
    total += work(insn);
    prog.insns.push_back(insn);
  }
  if (prog.insns.empty() || total > kMaxWork) return 0;
  static const VtaConfig cfg = [] {
    VtaConfig c = default_vta_config();
    c.name = "fuzz";
    c.log_uop_buff_size = 10;
    c.log_inp_buff_size = 10;
    c.log_wgt_buff_size = 12;
    c.log_acc_buff_size = 13;
    validate_vta_config(c, "fuzz/vta_decode.cpp");
    return c;
  }();
  std::vector<std::uint8_t> dram(1 << 14, 0);
  std::memcpy(dram.data(), data, std::min(size, dram.size()));
  try {
    (void)run_vta(prog, dram, cfg, VtaMode::timing);
    (void)run_vta(prog, dram, cfg, VtaMode::functional);
  } catch (const Error&) {
  }
  return 0;
}
