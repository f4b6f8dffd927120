// load_kernel.hpp — a generated kernel built and loaded into the bench process, for the benches
// that time kernels themselves (attune-bench, attune-demo-baseline).
#pragma once

#include "codegen/artifact.hpp"

namespace bench {

using Kernel = void (*)(void* const*);

// Builds `a` (one compiler cache per process) and returns its entry point; the library stays
// loaded. Throws attune::Error when it does not build or load.
Kernel load_kernel(const attune::Artifact& a);

}  // namespace bench
