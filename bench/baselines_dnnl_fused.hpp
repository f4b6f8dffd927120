// baselines_dnnl_fused.hpp — oneDNN baselines for the multi-stage ops (bench/workloads/fused.txt):
//   softmax              softmax_forward over the last axis
//   layernorm            layer_normalization_forward, scale (Gamma) and shift (Beta), the line's eps
//   gelu                 eltwise_forward gelu_erf (gelu_tanh for form=tanh)
//   maxpool2d, avgpool2d pooling_forward max / avg_include_padding, the op's layout
//   global_avgpool       pooling_forward avg over the whole H x W window (Y[N, C] as {N, C, 1, 1})
//   conv2d_bias_add_relu convolution_forward with bias, post-ops binary_add (Res) and relu
//   gemm_bias_gelu       matmul with bias, post-op eltwise gelu_erf (gelu_tanh)
//   attention            unfused: matmul Q K^T (output scale 1/sqrt(D)), softmax in place, matmul
//                        with V, three primitives timed as one call (Baseline::detail says so)
// Every primitive reads attune's buffers in place (op.tensors order, looked up by name) and writes
// the baseline's own output; a primitive that wants another layout for its weights gets a reorder
// inside the timed call, as the convolution baselines do (baselines_dnnl.hpp). Baseline::detail
// names the primitives and the implementations oneDNN picked ("softmax jit:avx512_core").
#pragma once

#include <vector>

#include "workload.hpp"

namespace bench {

// Empty for the multi-stage templates not listed above. Throws dnnl::error or attune::Error
// when oneDNN refuses the problem. Call it after the thread count is set.
std::vector<Baseline> dnnl_fused_baselines(const Workload& w, const std::vector<attune::Buffer>& bufs);

}  // namespace bench
