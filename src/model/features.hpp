// model/features.hpp — the numbers cost models learn from (the model/ stage).
//
// Visible features are known before compiling: a loop nest's static shape in the style of
// Ansor/TenSet (nest_features), plus whatever a space adds (its knob values). Hidden features
// are read from the compiled result (ML²Tuner): object-code counts on the CPU, instruction and
// DMA counts on VTA. Both are fixed-length float vectors with names, so every record of a
// target lines up column by column; an absent value is NaN (XGBoost's "missing").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedule/loopnest.hpp"

namespace attune {

struct FeatureCaches {                            // the cache levels nest_features() measures reuse in
  double l1 = 32768, l2 = 524288, l3 = 33554432;  // bytes
};

// Static features of the statement that does the arithmetic (the update statement) and of the
// nest around it:
//   global:   log2 flops, loops, statements, parallel loops and their extent, local buffer bytes
//   loops:    for the 8 innermost loops around the update (innermost first): log2 extent,
//             kind (serial/parallel/vector/unroll as 0..3), reduction or not
//   vector:   vector lanes, product of unrolled extents (the register tile)
//   buffers:  for the output and up to 3 inputs: stride of the innermost loop in elements and,
//             per cache level (L1, L2, L3), the log2 bytes touched inside the largest inner
//             loop band whose whole footprint fits that cache, and the log2 reuse (accesses
//             per distinct element) there
//   intensity: flops per byte inside that band, per cache level
std::vector<float> nest_features(const LoopNest& nest, const FeatureCaches& caches = {});
const std::vector<std::string>& nest_feature_names();

// The hidden features of a compiled candidate, flattened in a fixed order:
//   "cpu": vector FMAs, vector loads, vector stores, stack spills/reloads, branches, calls,
//          instructions, code bytes (runtime's object_features())
//   "cuda": registers, shared memory, stack frame, spill store/load bytes, kernels (ptxas's
//          report, runtime's cuda_kernel_features())
//   "vta": instructions per opcode, micro-ops, kernel micro-ops, DMA bytes per buffer, peak
//          entries and occupancy per buffer, chunks, tile groups, threads, GEMM micro-op
//          iterations, padding entries (codegen_vta's hidden features, never the cycles)
// `hidden` is the JSON stored with the record; keys that are absent give NaN.
std::vector<float> hidden_vector(const nlohmann::json& hidden, const std::string& kind);
const std::vector<std::string>& hidden_feature_names(const std::string& kind);
// A's input: the visible features followed by hidden_vector(hidden, kind).
std::vector<float> with_hidden(std::vector<float> visible, const nlohmann::json& hidden, const std::string& kind);

}  // namespace attune
