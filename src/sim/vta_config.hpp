// sim/vta_config.hpp — the shape and timing of a VTA-style accelerator.
//
// The file format follows VTA's vta_config.json (log2 of widths, of the GEMM core's dimensions
// and of the buffer sizes in bytes) plus a "timing" object holding every constant of the cycle
// model, so a different board is a different file, not a different build. Shipped targets live
// in targets/vta/ (default.json: 1x16x16, 32/32/256/128 KB; extended.json: buffers doubled).
// Loading validates every field and throws attune::Error naming the file and the field.
// Tests: tests/sim/vta_config_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace attune {

// Cycle-model constants. DMA: a transfer occupies the (single, shared) DRAM channel for
// rows * dma_row_overhead_cycles + ceil(bytes / dram_bytes_per_cycle), then its data arrives
// dram_latency_cycles later; padding blocks are written by the load unit at pad_cycles_per_block.
// GEMM/ALU: pipeline fill + one micro-op iteration every initiation interval (ii).
struct VtaTiming {
  std::uint32_t dram_bytes_per_cycle = 8;
  std::uint32_t dram_latency_cycles = 64;
  std::uint32_t dma_row_overhead_cycles = 2;
  std::uint32_t pad_cycles_per_block = 1;
  std::uint32_t insn_issue_cycles = 1;  // decode and dispatch, paid by every instruction
  std::uint32_t gemm_ii = 1;
  std::uint32_t gemm_pipeline_cycles = 4;
  std::uint32_t alu_ii = 2;
  std::uint32_t alu_pipeline_cycles = 4;
};

struct VtaConfig {
  std::string name = "default";
  // log2 of element widths in bits; the functional model is int8 x int8 -> int32 only.
  int log_inp_width = 3;
  int log_wgt_width = 3;
  int log_acc_width = 5;
  // log2 of the GEMM core: BATCH x BLOCK_IN x BLOCK_OUT.
  int log_batch = 0;
  int log_block_in = 4;
  int log_block_out = 4;
  // log2 of the on-chip buffer sizes in bytes.
  int log_uop_buff_size = 15;
  int log_inp_buff_size = 15;
  int log_wgt_buff_size = 18;
  int log_acc_buff_size = 17;
  VtaTiming timing;

  std::uint32_t batch() const { return 1u << log_batch; }
  std::uint32_t block_in() const { return 1u << log_block_in; }
  std::uint32_t block_out() const { return 1u << log_block_out; }

  // Bytes of one buffer entry (one "element" of a LOAD/STORE: a whole tile).
  std::uint32_t uop_elem_bytes() const { return 4; }
  std::uint32_t inp_elem_bytes() const { return batch() * block_in(); }
  std::uint32_t wgt_elem_bytes() const { return block_out() * block_in(); }
  std::uint32_t acc_elem_bytes() const { return batch() * block_out() * 4; }
  std::uint32_t out_elem_bytes() const { return batch() * block_out(); }

  // Entries per buffer. The out buffer (what STORE reads) mirrors the accumulator.
  std::uint32_t uop_depth() const { return (1u << log_uop_buff_size) / uop_elem_bytes(); }
  std::uint32_t inp_depth() const { return (1u << log_inp_buff_size) / inp_elem_bytes(); }
  std::uint32_t wgt_depth() const { return (1u << log_wgt_buff_size) / wgt_elem_bytes(); }
  std::uint32_t acc_depth() const { return (1u << log_acc_buff_size) / acc_elem_bytes(); }
};

// The built-in default (identical to targets/vta/default.json).
VtaConfig default_vta_config();

// Throws attune::Error naming `source` and the field when a value is out of its range (the
// same ranges the file loader enforces). run_vta calls it too, for hand-built configs.
void validate_vta_config(const VtaConfig& cfg, std::string_view source);

// Parses and validates JSON text; `source` names the file in error messages.
VtaConfig parse_vta_config(std::string_view json_text, std::string_view source);

// Reads a config file. Throws attune::Error when it cannot be read or is invalid.
VtaConfig load_vta_config(const std::string& path);

// <dir>/vta/<name>.json in the first of target_dirs() (locations.hpp) that has it ("default", "extended").
std::string vta_target_path(std::string_view name);

}  // namespace attune
