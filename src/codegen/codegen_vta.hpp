// codegen/codegen_vta.hpp — lower an int8 conv2d (NCHW) or GEMM onto the VTA GEMM intrinsic.
//
// The schedule is AutoTVM's VTA conv2d template, expressed as knobs (VtaKnobs): two-way splits
// tile_b, tile_h, tile_w, tile_ci, tile_co (each knob holds the inner factor, in GEMM-core
// blocks for b/ci/co and in pixels for h/w) and oc_nthread, h_nthread in {1, 2} virtual threads.
// compile_vta() turns (op, knobs, config) into a VtaProgram, its micro-ops and the DRAM image
// layout, or a compile_error naming the rule the real toolchain (vta.build) would refuse it by.
// What it cannot know before running (an accumulator hazard) the simulator reports as a
// runtime_error. A GEMM C[m,n] += A[m,k]*B[k,n] is lowered as a 1x1 convolution whose batch is
// m: VTA's dense schedule uses the same knobs (tile_h/tile_w are then 1, and h_nthread threads
// over batch tiles).
//
// DRAM layouts (one entry = one GEMM-core tile, see vta_config.hpp):
//   input   N/BATCH x C/BI x H x W x (BATCH x BI)          ("NCHW1n16c")
//   weight  K/BO x C/BI x R x S x (BO x BI)
//   output  four byte planes, each N/BATCH x K/BO x OH x OW x (BATCH x BO)
// Why four planes: attune's int8 conv/gemm output is the exact int32 accumulation, but VTA's
// STORE narrows each accumulator to its low 8 bits. The program stores the accumulator four
// times, shifting it right by 8 (ALU shr) between the stores, so plane p holds byte p of every
// int32 result and the host reassembles the int32 bit-exactly. This keeps "bit-exact against
// the reference evaluator" literally true without changing the simulator, and costs about what
// the requantisation epilogue of a real VTA layer costs (three ALU passes) plus the int32
// output traffic attune's op definition asks for.
//
// Tests: tests/search/vta_codegen_test.cpp, tests/search/vta_space_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/buffer.hpp"
#include "ir/measure.hpp"
#include "ir/op.hpp"
#include "schedule/schedule.hpp"
#include "sim/vta_config.hpp"
#include "sim/vta_program.hpp"
#include "sim/vta_sim.hpp"

namespace attune {

// The accelerator clock the cycle counts are turned into seconds with. VtaConfig has no clock
// field yet; 100 MHz is VTA's PYNQ-Z1 clock.
inline constexpr double kVtaClockHz = 100e6;

enum class VtaOpKind : std::uint8_t { conv2d, gemm };

// The op as the VTA lowering sees it: a convolution in elements (not blocks).
struct VtaProblem {
  VtaOpKind kind = VtaOpKind::conv2d;
  std::int64_t n = 1, c = 1, h = 1, w = 1;  // input
  std::int64_t k = 1, r = 1, s = 1;         // filters
  std::int64_t stride = 1, pad = 0;
  std::int64_t oh = 1, ow = 1;                        // output
  int in_tensor = 0, wgt_tensor = 1, out_tensor = 2;  // indices into op.tensors
};

// Recognises `conv2d:...,dtype=int8` (NCHW, groups 1, dilation 1, no epilogue, stride and pad
// equal on both axes) and `gemm:...,dtype=int8`. Throws Error saying what does not fit.
VtaProblem vta_problem_of(const Op& op);

// The template's knobs as the compiler uses them. A schedule (schedule.hpp) holds them by name
// (AcceleratorKnobs, target "vta", whose declared list is these seven names).
struct VtaKnobs {
  std::int64_t tile_b = 1, tile_h = 1, tile_w = 1, tile_ci = 1, tile_co = 1;
  std::int64_t oc_nthread = 1, h_nthread = 1;

  nlohmann::json to_json() const;                 // {"tile_b": 1, ...}, for people (space statistics)
  static VtaKnobs of(const AcceleratorKnobs& k);  // each read by its name; Error for another target
  bool operator==(const VtaKnobs&) const = default;
};

// The knobs of AutoTVM's VTA template for this op, in order, with every choice: each tile_*
// knob lists the divisors of its axis (AutoTVM's "factors" split policy), the thread knobs
// {1, 2}. GEMM has no tile_h / tile_w knobs.
std::vector<std::pair<std::string, std::vector<std::int64_t>>> vta_knob_choices(const VtaProblem& p,
                                                                                const VtaConfig& cfg);

// Where the program expects its data in DRAM (byte offsets; see the layouts above).
struct VtaImage {
  std::size_t bytes = 0;  // the DRAM region size the program needs
  std::size_t inp_off = 0, wgt_off = 0, uop_off = 0;
  std::size_t out_off = 0;  // plane p starts at out_off + p * out_plane_bytes
  std::size_t out_plane_bytes = 0;
};

// Compile errors, the ways vta.build refuses a schedule:
//   innermost_padding  N/C/K not a multiple of BATCH/BLOCK_IN/BLOCK_OUT: the packed layout would
//                      need padding inside the innermost block, which the DMA cannot write;
//   vthread_split      a virtual-thread count that does not divide its tile loop;
//   inp_overflow, wgt_overflow, acc_overflow
//                      a tile (times the virtual threads) larger than its on-chip buffer;
//   uop_overflow       the micro-op kernels do not fit the micro-op buffer;
//   not_expressible    a DMA or micro-op field outside its encoding (pad > 15, stride > 16 bits,
//                      an index past a micro-op field...).
struct VtaCompiled {
  Status status = Status::ok;  // ok or compile_error
  std::string error_kind;      // one of the names above; empty when ok
  std::string error;           // one line: what overflowed and by how much
  VtaKnobs knobs;
  VtaProgram program;
  std::vector<VtaUop> uops;  // loaded once, at the start of the program
  VtaImage image;
  // Read from the compiled result (ML²Tuner's hidden features): instruction counts per
  // opcode, micro-op count, DMA bytes per buffer, peak buffer occupancy, tile counts.
  nlohmann::json hidden;
  bool ok() const { return status == Status::ok; }
};

VtaCompiled compile_vta(const Op& op, const VtaKnobs& knobs, const VtaConfig& cfg);

// A DRAM image for `c`: micro-ops written, and when `tensors` (op.tensors order) is given the
// input and weight packed into their layouts; otherwise only the micro-ops (timing mode).
std::vector<std::uint8_t> vta_make_dram(const Op& op, const VtaCompiled& c, const VtaConfig& cfg,
                                        const std::vector<Buffer>* tensors);
// Reassembles the int32 output (op's output tensor, NCHW or MxN) from the four byte planes.
void vta_read_output(const Op& op, const VtaCompiled& c, const VtaConfig& cfg, std::span<const std::uint8_t> dram,
                     Buffer& out);

// One timing-mode run. m.status is ok or runtime_error (with the simulator's message);
// m.median_s = cycles / kVtaClockHz. `hidden` is c.hidden plus the run's cycles and counters.
struct VtaTimed {
  Measurement m;
  std::uint64_t cycles = 0;
  VtaErrorKind error_kind = VtaErrorKind::none;
  nlohmann::json hidden;
};
VtaTimed vta_time(const VtaCompiled& c, const VtaConfig& cfg);

// Runs `c` functionally on make_buffers(op, seed) inputs (input and weight redrawn over the
// full int8 range, so every byte plane of the result matters) and compares the int32 output
// with `reference`: vta_reference_output(op, seed), computed here when null (pass it in to
// check many candidates against one evaluation). Status ok, runtime_error or wrong_result.
Measurement vta_verify(const Op& op, const VtaCompiled& c, const VtaConfig& cfg, std::uint64_t seed,
                       const Buffer* reference = nullptr);
// The reference evaluator's output (evaluator.hpp) for the inputs vta_verify draws from `seed`.
Buffer vta_reference_output(const Op& op, std::uint64_t seed);

// "vta" -> targets/vta/default.json, "vta:extended" -> targets/vta/extended.json,
// "vta:PATH" -> that file. Throws Error for anything else or a bad file.
VtaConfig vta_config_for(std::string_view target_arg);
bool is_vta_target_arg(std::string_view target_arg);  // "vta" or "vta:..."

// Share of invalid configurations of the knob space, by failure kind ("compile_error:acc_overflow",
// "runtime_error:acc_hazard", ...). All configs when the space has at most max_configs,
// otherwise max_configs drawn uniformly without repeats (fixed seed: reproducible).
struct SpaceStats {
  std::string op;
  std::size_t space_size = 0;
  std::size_t evaluated = 0;
  std::size_t valid = 0;
  std::map<std::string, std::size_t> invalid_by_kind;
  std::uint64_t best_cycles = 0;  // fastest valid config seen (0 when none)
  nlohmann::json best_knobs;
  double invalid_share() const {
    return evaluated ? 1.0 - static_cast<double>(valid) / static_cast<double>(evaluated) : 0.0;
  }
  nlohmann::json to_json() const;
  std::string str() const;  // one line per kind, for the CLI
};
SpaceStats vta_space_stats(const Op& op, const VtaConfig& cfg, int max_configs);

}  // namespace attune
