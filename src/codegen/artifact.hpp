// codegen/artifact.hpp — what a backend hands to the runtime: source text plus its build recipe.
//
// The CPU backend emits one C translation unit exporting
//     void attune_kernel(void* const* buffers);
// where buffers[i] points at op.tensors[i] (dtype layout, row-major, 64-byte aligned).
// Threads follow OpenMP's usual controls (OMP_NUM_THREADS / omp_set_num_threads).
//
// A kernel that packs a const input (a weight) whole, at the root of its nest, also exports
//     const long attune_kernel_packed_bytes[];  // sizes of the packed buffers, then 0
//     void attune_kernel_pack(void* const* buffers, void* const* packed);
//     void attune_kernel_prepacked(void* const* buffers, void* const* packed);
// pack fills packed[j] (packed_bytes[j] bytes, 64-byte aligned) from the const inputs alone;
// prepacked then computes the output as attune_kernel does, reading packed[j] instead of packing
// on every call. A caller whose const inputs keep their values (a network's weights, the worker's
// timed calls) packs once and calls prepacked; attune_kernel stays the whole kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attune {

struct Artifact {
  std::string language = "c";           // "c" (CPU), "cuda", "vta"
  std::string source;                   // the full translation unit
  std::string entry = "attune_kernel";  // exported symbol
  std::vector<std::string> flags;       // compiler flags, e.g. {"-O3", "-march=native", "-fopenmp"}
  // The source's ENTRY_packed_bytes, before the 0: one per buffer ENTRY_pack fills (C only;
  // empty when the kernel has no pre-packing entries).
  std::vector<std::int64_t> packed_bytes;
};

// The C source of `a` with its entry point renamed to `symbol`, so that several kernels can live
// in one library (libgen, libgen --model). Throws InternalError unless `a` defines its entry
// exactly once as `void ENTRY(`.
// The pre-packing symbols (when the source has them) are renamed with it: SYMBOL_pack, ...
std::string source_with_entry(const Artifact& a, const std::string& symbol);

// The names of an entry point's pre-packing symbols; one place for the kernel ABI's spelling.
struct PrepackSymbols {
  std::string packed_bytes, pack, prepacked;
};
PrepackSymbols prepack_symbols(const std::string& entry);

}  // namespace attune
