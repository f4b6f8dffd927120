// The cycle model of VTA instructions (see vta_timing.hpp and sim/vta_config.hpp).
#include "vta_timing.hpp"

#include <algorithm>

namespace attune::vta_detail {

namespace {

std::uint32_t elem_bytes(VtaMemType m, const VtaConfig& c) {
  switch (m) {
    case VtaMemType::uop: return c.uop_elem_bytes();
    case VtaMemType::inp: return c.inp_elem_bytes();
    case VtaMemType::wgt: return c.wgt_elem_bytes();
    case VtaMemType::acc: return c.acc_elem_bytes();
    case VtaMemType::out: return c.out_elem_bytes();
  }
  return 0;
}

}  // namespace

std::uint64_t dma_bytes(const VtaInsn& in, const VtaConfig& cfg) {
  return std::uint64_t(in.y_size) * in.x_size * elem_bytes(in.mem, cfg);
}

std::uint64_t dma_end(const VtaInsn& in, const VtaConfig& cfg, std::uint64_t start, DramChannel& ch) {
  const VtaTiming& t = cfg.timing;
  const std::uint64_t issued = start + t.insn_issue_cycles;
  const std::uint64_t bytes = dma_bytes(in, cfg);
  if (bytes == 0) return issued;  // VTA skips an empty transfer, padding included
  const std::uint64_t entries =
      (std::uint64_t(in.y_pad_0) + in.y_size + in.y_pad_1) * (std::uint64_t(in.x_pad_0) + in.x_size + in.x_pad_1);
  const std::uint64_t pad_entries = entries - std::uint64_t(in.y_size) * in.x_size;
  // One burst per row; the data phase holds the channel, the latency overlaps what follows.
  const std::uint64_t begin = std::max(issued, ch.free_at);
  const std::uint64_t data = std::uint64_t(in.y_size) * t.dma_row_overhead_cycles +
                             (bytes + t.dram_bytes_per_cycle - 1) / t.dram_bytes_per_cycle;
  ch.free_at = begin + data;
  return begin + data + t.dram_latency_cycles + pad_entries * t.pad_cycles_per_block;
}

std::uint64_t loop_iters(const VtaInsn& in) {
  const std::uint64_t n = in.uop_end > in.uop_bgn ? in.uop_end - in.uop_bgn : 0;
  return std::uint64_t(in.iter_out) * in.iter_in * n;
}

std::uint64_t compute_cycles(const VtaInsn& in, const VtaConfig& cfg) {
  const VtaTiming& t = cfg.timing;
  const std::uint64_t iters = loop_iters(in);
  switch (in.opcode) {
    case VtaOpcode::gemm: return t.insn_issue_cycles + (iters ? t.gemm_pipeline_cycles + iters * t.gemm_ii : 0);
    case VtaOpcode::alu: return t.insn_issue_cycles + (iters ? t.alu_pipeline_cycles + iters * t.alu_ii : 0);
    default: return t.insn_issue_cycles;
  }
}

}  // namespace attune::vta_detail
