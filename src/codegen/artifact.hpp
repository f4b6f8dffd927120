// codegen/artifact.hpp — what a backend hands to the runtime: source text plus its build recipe.
//
// The CPU backend emits one C translation unit exporting
//     void attune_kernel(void* const* buffers);
// where buffers[i] points at op.tensors[i] (dtype layout, row-major, 64-byte aligned).
// Threads follow OpenMP's usual controls (OMP_NUM_THREADS / omp_set_num_threads).
#pragma once

#include <string>
#include <vector>

namespace attune {

struct Artifact {
  std::string language = "c";           // "c" (CPU), "cuda", "vta"
  std::string source;                   // the full translation unit
  std::string entry = "attune_kernel";  // exported symbol
  std::vector<std::string> flags;       // compiler flags, e.g. {"-O3", "-march=native", "-fopenmp"}
};

// The C source of `a` with its entry point renamed to `symbol`, so that several kernels can live
// in one library (libgen, libgen --model). Throws InternalError unless `a` defines its entry
// exactly once as `void ENTRY(`.
std::string source_with_entry(const Artifact& a, const std::string& symbol);

}  // namespace attune
