// compile_vta: a knob config -> VTA instruction stream, micro-ops and hidden features.
//
// The program, per tile group (one tile per virtual thread; the loop order is AutoTVM's
// b -> h -> co -> w, thread t taking the tiles that are t modulo the thread count):
//
//   GEMM reset of each thread's accumulator tile            (waits for its last STORE: s2g)
//   for each reduction chunk of tile_ci channel blocks:
//     for each thread: LOAD inp (one 2-D DMA per batch/channel block, halo and padding by
//                      the DMA's pad fields), LOAD wgt (one DMA)          -> l2g
//                      GEMM over the thread's micro-op kernel             <- l2g, -> g2l
//   epilogue, per byte plane p = 0..3 of the int32 result (see codegen_vta.hpp):
//     (p > 0) ALU shr 8 on each thread's tile               <- s2g, -> g2s
//     STORE each thread's tile into plane p                 <- g2s, -> s2g
//
// A thread's input/weight buffers are reused by its next chunk only after its GEMM released
// them (g2l), so with one thread loads and GEMMs alternate, while with two the loads of one
// thread overlap the GEMM of the other: the latency hiding virtual threads exist for.
//
// Micro-op kernel of a thread (GEMM loops: iter_out = input channels of the chunk, iter_in =
// filter rows r): for s < S, b < tb, co < tco, h < th, w < tw one micro-op
//   acc[b][co][h][w] += inp[b][ci][h*stride + r][w*stride + s] * wgt[co][ci][r][s]
// Consecutive micro-ops write different accumulator entries unless the tile is a single
// entry; then the simulator reports the hazard at run time (the toolchain cannot see it).
#include <algorithm>
#include <array>

#include "ir/error.hpp"
#include "vta_plan.hpp"

namespace attune {

namespace vta_detail {

namespace {

using u32 = std::uint32_t;

struct Tile {
  std::int64_t b0 = 0, h0 = 0, co0 = 0, w0 = 0;  // tile indices along each axis
};

class Emitter {
 public:
  Emitter(const Plan& s, const VtaConfig& cfg, const VtaImage& img) : s_(s), cfg_(cfg), img_(img) {}

  void run() {
    build_uops();
    b_.load(VtaMemType::uop, {.dram_base = u32(img_.uop_off / cfg_.uop_elem_bytes()), .x_size = u32(uops_.size())});
    total_loads_ = s_.groups() * s_.chunks * s_.threads;
    const std::int64_t row_groups = (s_.row_is_batch ? s_.b_tiles : s_.h_tiles) / s_.vt_h;
    const std::int64_t b_groups = s_.row_is_batch ? row_groups : s_.b_tiles;
    const std::int64_t h_groups = s_.row_is_batch ? 1 : row_groups;
    std::int64_t gi = 0;
    std::vector<Tile> tiles(std::size_t(s_.threads));
    for (std::int64_t bg = 0; bg < b_groups; ++bg)
      for (std::int64_t hg = 0; hg < h_groups; ++hg)
        for (std::int64_t cg = 0; cg < s_.co_tiles / s_.vt_oc; ++cg)
          for (std::int64_t w0 = 0; w0 < s_.w_tiles; ++w0, ++gi) {
            for (std::int64_t t = 0; t < s_.threads; ++t) {
              const std::int64_t ti = t / s_.vt_oc, to = t % s_.vt_oc;
              Tile& x = tiles[std::size_t(t)];
              x.b0 = s_.row_is_batch ? bg * s_.vt_h + ti : bg;
              x.h0 = s_.row_is_batch ? hg : hg * s_.vt_h + ti;
              x.co0 = cg * s_.vt_oc + to;
              x.w0 = w0;
            }
            group(tiles, gi == 0, gi + 1 == s_.groups());
          }
    b_.finish({.pop_next = true});  // after the last STORE
  }

  VtaProgram take_program() { return b_.take(); }
  std::vector<VtaUop> take_uops() { return std::move(uops_); }

 private:
  u32 inp_base(std::int64_t t) const { return u32(t * s_.inp_tile); }
  u32 wgt_base(std::int64_t t) const { return u32(t * s_.wgt_tile); }
  u32 acc_base(std::int64_t t) const { return u32(t * s_.acc_tile); }
  u32 uop_base(std::int64_t t) const { return u32(t * s_.thread_uops); }

  void build_uops() {
    const VtaProblem& p = s_.p;
    for (std::int64_t t = 0; t < s_.threads; ++t) {
      uops_.push_back({acc_base(t), acc_base(t), 0});  // reset and ALU: the tile, entry by entry
      for (std::int64_t ss = 0; ss < p.s; ++ss)
        for (std::int64_t b = 0; b < s_.tb; ++b)
          for (std::int64_t co = 0; co < s_.tco; ++co)
            for (std::int64_t h = 0; h < s_.th; ++h)
              for (std::int64_t w = 0; w < s_.tw; ++w)
                uops_.push_back({u32(acc_base(t) + ((b * s_.tco + co) * s_.th + h) * s_.tw + w),
                                 u32(inp_base(t) + b * s_.tci * s_.plane + h * p.stride * s_.in_tw + w * p.stride + ss),
                                 u32(wgt_base(t) + co * s_.tci * p.r * p.s + ss)});
    }
  }

  // The whole tile loop over one accumulator tile (reset and ALU share this form).
  VtaLoop tile_loop(std::int64_t t) const {
    return {.uop_bgn = uop_base(t),
            .uop_end = uop_base(t) + 1,
            .iter_out = u32(s_.acc_tile),
            .dst_factor_out = 1,
            .src_factor_out = 1};
  }

  void group(const std::vector<Tile>& tiles, bool first, bool last) {
    const std::int64_t T = s_.threads;
    for (std::int64_t t = 0; t < T; ++t) b_.gemm_reset(tile_loop(t), {.pop_next = !first});
    for (std::int64_t ch = 0; ch < s_.chunks; ++ch)
      for (std::int64_t t = 0; t < T; ++t) {
        loads(t, tiles[std::size_t(t)], ch);
        gemm(t, ch + 1 == s_.chunks);
      }
    for (int plane = 0; plane < 4; ++plane) {
      if (plane > 0)
        for (std::int64_t t = 0; t < T; ++t)
          b_.alu_imm(VtaAluOp::shr, 8, tile_loop(t), {.pop_next = true, .push_next = true});
      for (std::int64_t t = 0; t < T; ++t)
        // The last tokens of the program: only the very last STORE signals FINISH.
        stores(t, tiles[std::size_t(t)], plane, !(last && plane == 3 && t + 1 < T));
    }
  }

  void loads(std::int64_t t, const Tile& x, std::int64_t ch) {
    const VtaProblem& p = s_.p;
    std::vector<std::pair<VtaMemType, VtaDma>> dmas;
    const std::int64_t ih0 = x.h0 * s_.th * p.stride - p.pad, iw0 = x.w0 * s_.tw * p.stride - p.pad;
    const std::int64_t yp0 = std::max<std::int64_t>(0, -ih0), yp1 = std::max<std::int64_t>(0, ih0 + s_.in_th - p.h);
    const std::int64_t xp0 = std::max<std::int64_t>(0, -iw0), xp1 = std::max<std::int64_t>(0, iw0 + s_.in_tw - p.w);
    const std::int64_t ys = s_.in_th - yp0 - yp1, xs = s_.in_tw - xp0 - xp1;
    ATTUNE_CHECK(ys > 0 && xs > 0, "an input tile lies entirely in the padding");
    const std::int64_t inp0 = std::int64_t(img_.inp_off / cfg_.inp_elem_bytes());
    for (std::int64_t b = 0; b < s_.tb; ++b)
      for (std::int64_t ci = 0; ci < s_.tci; ++ci) {
        const std::int64_t plane = (x.b0 * s_.tb + b) * s_.cb + ch * s_.tci + ci;
        dmas.push_back({VtaMemType::inp,
                        {.sram_base = u32(inp_base(t) + (b * s_.tci + ci) * s_.plane),
                         .dram_base = u32(inp0 + (plane * p.h + ih0 + yp0) * p.w + iw0 + xp0),
                         .y_size = u32(ys),
                         .x_size = u32(xs),
                         .x_stride = u32(p.w),
                         .y_pad_0 = u32(yp0),
                         .y_pad_1 = u32(yp1),
                         .x_pad_0 = u32(xp0),
                         .x_pad_1 = u32(xp1)}});
      }
    const std::int64_t rs = p.r * p.s, wgt0 = std::int64_t(img_.wgt_off / cfg_.wgt_elem_bytes());
    dmas.push_back({VtaMemType::wgt,
                    {.sram_base = wgt_base(t),
                     .dram_base = u32(wgt0 + (x.co0 * s_.tco * s_.cb + ch * s_.tci) * rs),
                     .y_size = u32(s_.tco),
                     .x_size = u32(s_.tci * rs),
                     .x_stride = u32(s_.cb * rs)}});
    for (std::size_t i = 0; i < dmas.size(); ++i)
      b_.load(dmas[i].first, dmas[i].second,
              {.pop_next = i == 0 && issued_ >= s_.threads, .push_next = i + 1 == dmas.size()});
  }

  void gemm(std::int64_t t, bool last_chunk) {
    const VtaProblem& p = s_.p;
    // A loop of one iteration gets zero factors: nothing steps, and no field can overflow.
    const bool ci_loop = s_.tci > 1, r_loop = p.r > 1;
    b_.gemm({.uop_bgn = uop_base(t) + 1,
             .uop_end = uop_base(t) + u32(s_.thread_uops),
             .iter_out = u32(s_.tci),
             .iter_in = u32(p.r),
             .src_factor_out = ci_loop ? u32(s_.plane) : 0,
             .src_factor_in = r_loop ? u32(s_.in_tw) : 0,
             .wgt_factor_out = ci_loop ? u32(p.r * p.s) : 0,
             .wgt_factor_in = r_loop ? u32(p.s) : 0},
            {.pop_prev = true, .push_prev = issued_ + s_.threads < total_loads_, .push_next = last_chunk});
    ++issued_;
  }

  void stores(std::int64_t t, const Tile& x, int plane, bool signal) {
    const VtaProblem& p = s_.p;
    const std::int64_t out0 =
        std::int64_t((img_.out_off + std::size_t(plane) * img_.out_plane_bytes) / cfg_.out_elem_bytes());
    std::vector<VtaDma> dmas;
    for (std::int64_t b = 0; b < s_.tb; ++b) {
      const std::int64_t row = (x.b0 * s_.tb + b) * s_.kb + x.co0 * s_.tco;  // (batch, channel) of the first row
      if (s_.tw == p.ow) {
        // Whole output rows: each channel's th rows are contiguous, one DMA row per channel.
        dmas.push_back({.sram_base = u32(acc_base(t) + b * s_.tco * s_.th * s_.tw),
                        .dram_base = u32(out0 + (row * p.oh + x.h0 * s_.th) * p.ow),
                        .y_size = u32(s_.tco),
                        .x_size = u32(s_.th * p.ow),
                        .x_stride = u32(p.oh * p.ow)});
        continue;
      }
      for (std::int64_t co = 0; co < s_.tco; ++co)
        dmas.push_back({.sram_base = u32(acc_base(t) + (b * s_.tco + co) * s_.th * s_.tw),
                        .dram_base = u32(out0 + ((row + co) * p.oh + x.h0 * s_.th) * p.ow + x.w0 * s_.tw),
                        .y_size = u32(s_.th),
                        .x_size = u32(s_.tw),
                        .x_stride = u32(p.ow)});
    }
    for (std::size_t i = 0; i < dmas.size(); ++i)
      b_.store(dmas[i], {.pop_prev = i == 0, .push_prev = signal && i + 1 == dmas.size()});
  }

  const Plan& s_;
  const VtaConfig& cfg_;
  const VtaImage& img_;
  VtaProgramBuilder b_;
  std::vector<VtaUop> uops_;
  std::int64_t total_loads_ = 0, issued_ = 0;  // load groups (one per thread and chunk)
};

std::uint32_t elem_bytes(VtaMemType m, const VtaConfig& c) {
  switch (m) {
    case VtaMemType::uop: return c.uop_elem_bytes();
    case VtaMemType::wgt: return c.wgt_elem_bytes();
    case VtaMemType::inp: return c.inp_elem_bytes();
    case VtaMemType::acc: return c.acc_elem_bytes();
    case VtaMemType::out: return c.out_elem_bytes();
  }
  return 0;
}

// Features known from the knobs alone (also recorded for configs that fail to compile).
nlohmann::json plan_features(const Plan& s, const VtaConfig& cfg) {
  auto share = [](std::int64_t used, std::uint32_t depth) { return double(used) / double(depth); };
  return {{"threads", s.threads},
          {"tile_groups", s.groups()},
          {"chunks", s.chunks},
          {"kernel_uops", s.kernel_uops},
          {"uops", s.total_uops()},
          {"peak_entries",
           {{"uop", s.total_uops()},
            {"inp", s.threads * s.inp_tile},
            {"wgt", s.threads * s.wgt_tile},
            {"acc", s.threads * s.acc_tile}}},
          {"peak_share",
           {{"uop", share(s.total_uops(), cfg.uop_depth())},
            {"inp", share(s.threads * s.inp_tile, cfg.inp_depth())},
            {"wgt", share(s.threads * s.wgt_tile, cfg.wgt_depth())},
            {"acc", share(s.threads * s.acc_tile, cfg.acc_depth())}}}};
}

// Counts read from the instruction stream (straight-line, so static counts are executed counts).
void program_features(const VtaProgram& prog, const VtaConfig& cfg, nlohmann::json& j) {
  std::array<std::uint64_t, kVtaNumOpcodes> n{};
  std::array<std::uint64_t, kVtaNumMemTypes> bytes{};
  std::uint64_t gemm_iters = 0, pad_entries = 0;
  for (const VtaInsn& in : prog.insns) {
    ++n[std::size_t(in.opcode)];
    if (in.opcode == VtaOpcode::load || in.opcode == VtaOpcode::store) {
      bytes[std::size_t(in.mem)] += std::uint64_t(in.y_size) * in.x_size * elem_bytes(in.mem, cfg);
      const std::uint64_t width = in.x_pad_0 + in.x_size + in.x_pad_1, rows = in.y_pad_0 + in.y_size + in.y_pad_1;
      pad_entries += rows * width - std::uint64_t(in.y_size) * in.x_size;
    }
    if (in.opcode == VtaOpcode::gemm && !in.reset)
      gemm_iters += std::uint64_t(in.iter_out) * in.iter_in * (in.uop_end - in.uop_bgn);
  }
  nlohmann::json insn = nlohmann::json::object(), dma = nlohmann::json::object();
  for (int op = 0; op < kVtaNumOpcodes; ++op) insn[std::string(vta_opcode_name(VtaOpcode(op)))] = n[std::size_t(op)];
  insn["total"] = prog.insns.size();
  for (int m = 0; m < kVtaNumMemTypes; ++m) dma[std::string(vta_mem_name(VtaMemType(m)))] = bytes[std::size_t(m)];
  j["insn"] = insn;
  j["dma_bytes"] = dma;
  j["pad_entries"] = pad_entries;
  j["gemm_uop_iters"] = gemm_iters;
}

// The first instruction or micro-op whose fields do not fit the encoding.
std::optional<std::string> encoding_problem(const VtaProgram& prog, const std::vector<VtaUop>& uops) {
  for (std::size_t i = 0; i < uops.size(); ++i)
    if (auto e = vta_encoding_error(uops[i])) return "micro-op " + std::to_string(i) + ": " + *e;
  for (std::size_t i = 0; i < prog.insns.size(); ++i)
    if (auto e = vta_encoding_error(prog.insns[i]))
      return "instruction " + std::to_string(i) + " (" + disassemble(prog.insns[i]) + "): " + *e;
  return std::nullopt;
}

}  // namespace

}  // namespace vta_detail

VtaCompiled compile_vta(const Op& op, const VtaKnobs& knobs, const VtaConfig& cfg) {
  using namespace vta_detail;
  VtaCompiled c;
  c.knobs = knobs;
  const Plan plan = make_plan(vta_problem_of(op), knobs, cfg);
  c.hidden = plan_features(plan, cfg);
  auto refuse = [&](const std::string& kind, const std::string& message) {
    c.status = Status::compile_error;
    c.error_kind = kind;
    c.error = "vta compile error (" + kind + "): " + message;
    c.program = {};
    c.uops.clear();
    return c;
  };
  if (auto r = check_plan(plan, cfg)) return refuse(r->kind, r->message);
  c.image = make_image(plan, cfg);
  Emitter e(plan, cfg, c.image);
  e.run();
  c.program = e.take_program();
  c.uops = e.take_uops();
  if (auto why = encoding_problem(c.program, c.uops)) return refuse("not_expressible", *why);
  program_features(c.program, cfg, c.hidden);
  return c;
}

}  // namespace attune
