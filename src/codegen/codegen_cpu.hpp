// codegen/codegen_cpu.hpp — the CPU backend: a scheduled LoopNest becomes one readable C file.
//
// The file opens with a comment holding the op, the trace and the printed nest; it exports
// `void attune_kernel(void* const* buffers)` (artifact.hpp). Parallel loops become OpenMP
// `parallel for`; vectorized f32 loops become GCC vector-extension code (8 or 16 lanes) when
// every access is contiguous or invariant in the loop, and `#pragma omp simd` scalar loops
// otherwise; unrolled loops are expanded in the source, so that small local accumulators whose
// indices become constants live in vector registers (promotion).
#pragma once

#include <string>
#include <vector>

#include "codegen/artifact.hpp"
#include "hw/target.hpp"
#include "schedule/loopnest.hpp"

namespace attune {

struct CpuCodegenOptions {
  int vector_bits = 256;      // 256: AVX2 (8 f32 lanes); 512: AVX-512 (16 lanes)
  int vector_registers = 16;  // the target's (VectorRegisters): how many accumulators promotion keeps
  std::vector<std::string> flags = {"-O3", "-march=native", "-fopenmp", "-ffp-contract=fast"};
  std::string trace_json;  // recorded in the header comment
};

Artifact lower_cpu(const LoopNest& nest, const CpuCodegenOptions& options = {});

// The options every kernel for `target` is generated with: the target's vector width (256 or
// 512 bits) and its compiler flags (through cpu_kernel_flags). The one place they are chosen:
// tune() lowers candidates with them and every later rebuild (best --emit, libgen, the benches,
// the demo) uses them too, so the rebuilt C is the measured C. Throws Error for a target that
// is not a cpu target.
CpuCodegenOptions cpu_codegen_options(const Target& target);

// The flags a generated CPU kernel is compiled with: `flags` (a target's or the options') plus
// -fno-predictive-commoning, unless already there. gcc 12's predictive commoning turns a loop of
// stores into stores of registers carried between iterations, and for the last iterations it
// loads the memory it will not write and stores it back unchanged: an invented store. Inside an
// OpenMP loop that store lands on the rows of the neighbouring thread, which may have written
// them meanwhile (a batch_matmul's zeroing nest, parallel over row tiles, kept a stale row now
// and then). Every CPU kernel, tuned or emitted into a library, is built with these flags.
std::vector<std::string> cpu_kernel_flags(std::vector<std::string> flags);

}  // namespace attune
