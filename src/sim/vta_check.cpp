// The faults a VTA-style accelerator raises, checked per instruction (see vta_check.hpp).
//
// Loop indices are affine in (y, x) with non-negative factors, so the largest index a micro-op
// reaches is at the last iteration, and whether two consecutive iterations write the same
// accumulator entry depends only on neighbouring micro-ops and the factors: every check here
// costs O(micro-ops), never O(iterations), which keeps timing mode fast.
#include "vta_check.hpp"

#include <sstream>

#include "sim/vta_isa.hpp"

namespace attune::vta_detail {

namespace {

Fault fault(VtaErrorKind kind, const std::string& msg) { return Fault{kind, msg}; }

struct BufferInfo {
  const char* name;
  std::uint32_t depth;
  std::uint32_t elem_bytes;
};

BufferInfo buffer_of(VtaMemType m, const VtaConfig& c) {
  switch (m) {
    case VtaMemType::uop: return {"micro-op", c.uop_depth(), c.uop_elem_bytes()};
    case VtaMemType::inp: return {"input", c.inp_depth(), c.inp_elem_bytes()};
    case VtaMemType::wgt: return {"weight", c.wgt_depth(), c.wgt_elem_bytes()};
    case VtaMemType::acc: return {"accumulator", c.acc_depth(), c.acc_elem_bytes()};
    case VtaMemType::out: return {"accumulator", c.acc_depth(), c.out_elem_bytes()};
  }
  return {"?", 0, 1};
}

Check check_tokens(const VtaInsn& in) {
  const Module m = module_of(in);
  if (m == Module::load && (in.deps.pop_prev || in.deps.push_prev))
    return fault(VtaErrorKind::bad_insn,
                 "the load module has no previous module to exchange a token with (pop_prev/push_prev set)");
  if (m == Module::store && (in.deps.pop_next || in.deps.push_next))
    return fault(VtaErrorKind::bad_insn,
                 "the store module has no next module to exchange a token with (pop_next/push_next set)");
  return std::nullopt;
}

}  // namespace

Check check_program(const VtaProgram& prog, std::int64_t& at) {
  const auto& v = prog.insns;
  for (std::size_t i = 0; i + 1 < v.size(); ++i) {
    if (v[i].opcode == VtaOpcode::finish) {
      at = std::int64_t(i);
      return fault(VtaErrorKind::bad_insn, "FINISH is not the last instruction");
    }
  }
  if (v.empty() || v.back().opcode != VtaOpcode::finish) {
    at = v.empty() ? -1 : std::int64_t(v.size() - 1);
    return fault(VtaErrorKind::bad_insn, "the program does not end with FINISH");
  }
  return std::nullopt;
}

Check check_static(const VtaInsn& in) {
  if (auto err = vta_encoding_error(in))
    return fault(VtaErrorKind::bad_insn, "field does not fit the instruction encoding: " + *err);
  if (in.opcode == VtaOpcode::load && in.mem == VtaMemType::out)
    return fault(VtaErrorKind::bad_insn, "LOAD cannot target the out buffer (only STORE reads it)");
  if (in.opcode == VtaOpcode::store) {
    if (in.mem != VtaMemType::out)
      return fault(VtaErrorKind::bad_insn, "STORE must read the out buffer, not " + std::string(vta_mem_name(in.mem)));
    if (in.y_pad_0 || in.y_pad_1 || in.x_pad_0 || in.x_pad_1)
      return fault(VtaErrorKind::bad_insn, "STORE does not support padding");
  }
  if ((in.opcode == VtaOpcode::gemm || in.opcode == VtaOpcode::alu) && in.uop_bgn > in.uop_end) {
    std::ostringstream os;
    os << "micro-op range is reversed: uop_bgn=" << in.uop_bgn << " > uop_end=" << in.uop_end;
    return fault(VtaErrorKind::bad_insn, os.str());
  }
  return check_tokens(in);
}

Check check_dma(const VtaInsn& in, const VtaConfig& cfg, std::size_t dram_bytes) {
  const BufferInfo buf = buffer_of(in.mem, cfg);
  const bool load = in.opcode == VtaOpcode::load;
  // On-chip span: padded rows for a LOAD, packed rows for a STORE.
  const std::uint64_t width = std::uint64_t(in.x_pad_0) + in.x_size + in.x_pad_1;
  const std::uint64_t rows = std::uint64_t(in.y_pad_0) + in.y_size + in.y_pad_1;
  const std::uint64_t entries = (in.x_size == 0 || in.y_size == 0) ? 0 : rows * width;
  if (entries > 0 && in.sram_base + entries > buf.depth) {
    std::ostringstream os;
    os << vta_opcode_name(in.opcode) << " " << vta_mem_name(in.mem) << " overflows the " << buf.name
       << " buffer: entries [" << in.sram_base << ", " << in.sram_base + entries << ") but it holds " << buf.depth;
    return fault(in.mem == VtaMemType::uop ? VtaErrorKind::uop_overflow : VtaErrorKind::buffer_overflow, os.str());
  }
  if (entries == 0) return std::nullopt;
  // DRAM span, in bytes: from the first entry to the end of the last row.
  const std::uint64_t first = std::uint64_t(in.dram_base) * buf.elem_bytes;
  const std::uint64_t end =
      (std::uint64_t(in.dram_base) + std::uint64_t(in.y_size - 1) * in.x_stride + in.x_size) * buf.elem_bytes;
  if (end > dram_bytes) {
    std::ostringstream os;
    os << vta_opcode_name(in.opcode) << " " << vta_mem_name(in.mem) << (load ? " reads" : " writes") << " DRAM bytes ["
       << first << ", " << end << ") outside the DRAM region of " << dram_bytes << " bytes";
    return fault(VtaErrorKind::dram_out_of_range, os.str());
  }
  return std::nullopt;
}

Check check_loop(const VtaInsn& in, const VtaConfig& cfg, std::span<const std::uint32_t> uop_buf) {
  const bool gemm = in.opcode == VtaOpcode::gemm;
  const char* op = gemm ? "GEMM" : "ALU";
  if (in.uop_end > uop_buf.size()) {
    std::ostringstream os;
    os << op << " micro-op kernel [" << in.uop_bgn << ", " << in.uop_end << ") exceeds the micro-op buffer ("
       << uop_buf.size() << " entries)";
    return fault(VtaErrorKind::uop_overflow, os.str());
  }
  if (in.uop_bgn == in.uop_end || in.iter_out == 0 || in.iter_in == 0) return std::nullopt;

  const std::uint64_t yl = in.iter_out - 1, xl = in.iter_in - 1;
  const bool reads_src = !in.reset && (gemm || !in.use_imm);
  const BufferInfo src_buf = gemm ? buffer_of(VtaMemType::inp, cfg) : buffer_of(VtaMemType::acc, cfg);
  auto over = [&](std::uint32_t k, const char* what, std::uint64_t idx, const BufferInfo& b) {
    std::ostringstream os;
    os << op << " micro-op " << k << " reaches " << what << " entry " << idx << " at iteration (" << yl << ", " << xl
       << "), past the end of the " << b.name << " buffer (" << b.depth << " entries)";
    return fault(VtaErrorKind::buffer_overflow, os.str());
  };
  for (std::uint32_t k = in.uop_bgn; k < in.uop_end; ++k) {
    const VtaUop u = decode_uop(uop_buf[k]);
    const std::uint64_t dst = u.dst_idx + yl * in.dst_factor_out + xl * in.dst_factor_in;
    if (dst >= cfg.acc_depth()) return over(k, "accumulator", dst, buffer_of(VtaMemType::acc, cfg));
    if (!reads_src) continue;
    const std::uint64_t src = u.src_idx + yl * in.src_factor_out + xl * in.src_factor_in;
    if (src >= src_buf.depth) return over(k, gemm ? "input" : "accumulator", src, src_buf);
    if (!gemm) continue;
    const std::uint64_t wgt = u.wgt_idx + yl * in.wgt_factor_out + xl * in.wgt_factor_in;
    if (wgt >= cfg.wgt_depth()) return over(k, "weight", wgt, buffer_of(VtaMemType::wgt, cfg));
  }

  // A reset only writes; everything else reads the entry back a few cycles later, so the
  // pipeline needs two consecutive iterations to target different entries.
  if (in.reset) return std::nullopt;
  auto dst_of = [&](std::uint32_t k) { return std::uint64_t(decode_uop(uop_buf[k]).dst_idx); };
  auto hazard = [&](std::uint64_t entry, const std::string& where) {
    std::ostringstream os;
    os << op << " writes accumulator entry " << entry << " in consecutive cycles (" << where << "): pipeline hazard";
    return fault(VtaErrorKind::acc_hazard, os.str());
  };
  for (std::uint32_t k = in.uop_bgn; k + 1 < in.uop_end; ++k)
    if (dst_of(k) == dst_of(k + 1))
      return hazard(dst_of(k), "micro-ops " + std::to_string(k) + " and " + std::to_string(k + 1));
  const std::uint64_t first = dst_of(in.uop_bgn), last = dst_of(in.uop_end - 1);
  if (in.iter_in > 1 && last == first + in.dst_factor_in)
    return hazard(last, "last micro-op of iteration (0, 0), first of (0, 1)");
  if (in.iter_out > 1 && last + xl * in.dst_factor_in == first + in.dst_factor_out)
    return hazard(first + in.dst_factor_out,
                  "last micro-op of iteration (0, " + std::to_string(xl) + "), first of (1, 0)");
  return std::nullopt;
}

}  // namespace attune::vta_detail
