// baselines_dnnl.hpp — oneDNN baselines: matmul for the GEMM families, convolution_forward /
// deconvolution_forward for the convolution families, and for the multi-stage ops the
// primitives of baselines_dnnl_fused.hpp.
#pragma once

#include <string>
#include <vector>

#include "workload.hpp"

namespace bench {

// "oneDNN 2.6.3 (cpu runtime OMP)".
std::string dnnl_version();

// Baselines for `w` reading attune's input buffers `bufs` (op.tensors order). Primitives are
// created here, so call it after the thread count is set (oneDNN sizes its work split for the
// OpenMP thread count at creation). Convolutions take oneDNN's preferred layouts
// (format_tag::any); the reorders from attune's plain layouts into them, and of the output
// back, run inside the timed call, as they would for a user holding attune's tensors.
// Empty for families oneDNN has no primitive for (capsule) and for contractions with an epilogue.
// Throws dnnl::error or attune::Error when oneDNN refuses the problem.
std::vector<Baseline> dnnl_baselines(const Workload& w, const std::vector<attune::Buffer>& bufs);

}  // namespace bench
