// The DRAM image of a VTA program: where each region lies, host-side packing of the input and
// weight into VTA's blocked layouts, and reassembly of the int32 output from its byte planes.
//
// Packing happens on the host, as TVM's VTA flow packs with a layout transform before the
// accelerator runs: input NCHW -> N/BATCH C/BI H W (BATCH BI); weight KCRS (gemm: B[k][n],
// transposed here) -> K/BO C/BI R S (BO BI).
#include <algorithm>
#include <cstring>

#include "ir/error.hpp"
#include "vta_plan.hpp"

namespace attune {

namespace vta_detail {

namespace {

std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

Plan plan_of(const Op& op, const VtaCompiled& c, const VtaConfig& cfg) {
  ATTUNE_CHECK(c.ok(), "a DRAM image was asked for a program that did not compile");
  return make_plan(vta_problem_of(op), c.knobs, cfg);
}

}  // namespace

VtaImage make_image(const Plan& s, const VtaConfig& cfg) {
  const VtaProblem& p = s.p;
  VtaImage img;
  std::size_t top = 0;
  // Every region starts at a multiple of its entry size (DMA addresses count entries) and of
  // 64 bytes, like VTA's buffer allocator.
  auto place = [&](std::size_t bytes, std::size_t entry) {
    const std::size_t at = align_up(top, std::max<std::size_t>(64, entry));
    top = at + bytes;
    return at;
  };
  img.inp_off = place(std::size_t(s.nb * s.cb * p.h * p.w) * cfg.inp_elem_bytes(), cfg.inp_elem_bytes());
  img.wgt_off = place(std::size_t(s.kb * s.cb * p.r * p.s) * cfg.wgt_elem_bytes(), cfg.wgt_elem_bytes());
  img.uop_off = place(std::size_t(s.total_uops()) * cfg.uop_elem_bytes(), cfg.uop_elem_bytes());
  img.out_plane_bytes = align_up(std::size_t(s.nb * s.kb * p.oh * p.ow) * cfg.out_elem_bytes(), 64);
  img.out_off = place(4 * img.out_plane_bytes, cfg.out_elem_bytes());
  img.bytes = align_up(top, 64);
  return img;
}

}  // namespace vta_detail

std::vector<std::uint8_t> vta_make_dram(const Op& op, const VtaCompiled& c, const VtaConfig& cfg,
                                        const std::vector<Buffer>* tensors) {
  const vta_detail::Plan s = vta_detail::plan_of(op, c, cfg);
  const VtaProblem& p = s.p;
  std::vector<std::uint8_t> dram(c.image.bytes, 0);
  write_uops(dram, c.image.uop_off, c.uops);
  if (!tensors) return dram;
  if (tensors->size() != op.tensors.size())
    throw Error("vta_make_dram: " + std::to_string(tensors->size()) + " buffers for " +
                std::to_string(op.tensors.size()) + " tensors");
  const auto* in = (*tensors)[std::size_t(p.in_tensor)].as<std::int8_t>();
  const auto* wt = (*tensors)[std::size_t(p.wgt_tensor)].as<std::int8_t>();
  const std::int64_t B = cfg.batch(), BI = cfg.block_in(), BO = cfg.block_out();
  const bool gemm = p.kind == VtaOpKind::gemm;
  // Input element (n, c, y, x): NCHW, or A[m][k] for gemm (h = w = 1).
  for (std::int64_t n = 0; n < p.n; ++n)
    for (std::int64_t ch = 0; ch < p.c; ++ch)
      for (std::int64_t y = 0; y < p.h; ++y)
        for (std::int64_t x = 0; x < p.w; ++x) {
          const std::int64_t entry = ((n / B * s.cb + ch / BI) * p.h + y) * p.w + x;
          dram[c.image.inp_off + std::size_t(entry * B * BI + (n % B) * BI + ch % BI)] =
              std::uint8_t(in[((n * p.c + ch) * p.h + y) * p.w + x]);
        }
  // Weight element (k, c, r, s): KCRS, or B[c][k] for gemm.
  for (std::int64_t k = 0; k < p.k; ++k)
    for (std::int64_t ch = 0; ch < p.c; ++ch)
      for (std::int64_t r = 0; r < p.r; ++r)
        for (std::int64_t q = 0; q < p.s; ++q) {
          const std::int64_t entry = ((k / BO * s.cb + ch / BI) * p.r + r) * p.s + q;
          const std::int64_t src = gemm ? ch * p.k + k : ((k * p.c + ch) * p.r + r) * p.s + q;
          dram[c.image.wgt_off + std::size_t(entry * BO * BI + (k % BO) * BI + ch % BI)] = std::uint8_t(wt[src]);
        }
  return dram;
}

void vta_read_output(const Op& op, const VtaCompiled& c, const VtaConfig& cfg, std::span<const std::uint8_t> dram,
                     Buffer& out) {
  const vta_detail::Plan s = vta_detail::plan_of(op, c, cfg);
  const VtaProblem& p = s.p;
  if (out.dtype() != DType::i32 || out.numel() != p.n * p.k * p.oh * p.ow)
    throw Error("vta_read_output: the output buffer is not the op's int32 output");
  if (dram.size() < c.image.bytes) throw Error("vta_read_output: the DRAM image is smaller than the program's");
  const std::int64_t B = cfg.batch(), BO = cfg.block_out();
  auto* o = out.as<std::int32_t>();
  // Output element (n, k, y, x): NCHW, or C[m][n] for gemm (oh = ow = 1, same flat order).
  for (std::int64_t n = 0; n < p.n; ++n)
    for (std::int64_t k = 0; k < p.k; ++k)
      for (std::int64_t y = 0; y < p.oh; ++y)
        for (std::int64_t x = 0; x < p.ow; ++x) {
          const std::int64_t entry = ((n / B * s.kb + k / BO) * p.oh + y) * p.ow + x;
          const std::size_t at = std::size_t(entry * B * BO + (n % B) * BO + k % BO);
          std::uint32_t v = 0;
          for (int plane = 0; plane < 4; ++plane)
            v |= std::uint32_t(dram[c.image.out_off + std::size_t(plane) * c.image.out_plane_bytes + at])
                 << (8 * plane);
          o[((n * p.k + k) * p.oh + y) * p.ow + x] = static_cast<std::int32_t>(v);
        }
}

}  // namespace attune
