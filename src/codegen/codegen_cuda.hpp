// codegen/codegen_cuda.hpp — the CUDA backend: a TensorizePlan (tensorize.hpp) onto a Tensor Core
// intrinsic (emit kinds "mma_sync": PTX mma.sync through inline asm; "wmma": nvcuda::wmma), as
// one CUDA C++ translation unit.
//
// The kernel is an implicit GEMM over the plan's fused dimensions: a block of 2x2 warps owns a
// BM x BN output tile (each warp FM x FN intrinsic tiles), stages A' (BM x BK, row-major) and B'
// (BN x BK, i.e. column-major K x N) into shared memory per reduction step with guarded gathers
// (im2col for fused convolution loops; zero outside tensors and in the padding), runs the
// intrinsic out of shared memory, and stores the accumulators with guards (and the epilogue).
// Unmapped spatial loops go to gridDim.z; unmapped reduction loops wrap the K loop.
//
// The file defines, for a kernel named ID (CudaCodegenOptions::name):
//   extern "C" __global__ void ID_kernel(<one pointer per op tensor, op order>);
//   extern "C" void ID_launch(void* const* buffers, cudaStream_t stream);
// so several kernels can share one .cu file. Nothing here runs nvcc: the CPU build never needs
// CUDA. Tests: tests/codegen/cuda_compile_test.cpp (compile only, where nvcc exists).
//
// Multi-stage ops (ir/expr.hpp: softmax, norms, pooling, attention) are not tensorized: each
// stage becomes one plain kernel (cuda/stage_kernels.cpp, lower_cuda_stages below).
#pragma once

#include <string>

#include "codegen/artifact.hpp"
#include "schedule/tensorize.hpp"

namespace attune {

struct CudaCodegenOptions {
  std::string name;  // kernel identifier prefix; empty: derived from the op and intrinsic
  int warps_m = 2;   // warps per block along M and N
  int warps_n = 2;
  int block_target = 64;  // aim for block tiles of about this many rows / columns
};

// Throws Error for an emit kind the CUDA backend cannot emit. Artifact: language "cuda", entry
// "<ID>_launch", flags from nothing (the caller adds -arch; see nvidia-h200.json).
Artifact lower_cuda(const TensorizePlan& plan, const CudaCodegenOptions& options = {});
// The ID lower_cuda uses when options.name is empty: a C identifier from op name + intrinsic.
std::string cuda_kernel_name(const TensorizePlan& plan);

// A multi-stage op (op.multi_stage()) as CUDA: for stage k a kernel
//   extern "C" __global__ void ID_s<k>(<the tensors stage k reads and writes>);
// (a grid-stride loop, one thread per output element, the stage's reduction inside the thread
// in float from its identity), and the host launchers
//   extern "C" size_t ID_workspace_bytes(void);  // the intermediates (op.locals), 256-byte aligned
//   extern "C" cudaError_t ID_launch_workspace(void* const* buffers, void* workspace, cudaStream_t s);
//   extern "C" cudaError_t ID_launch(void* const* buffers, cudaStream_t s);
// buffers: one device pointer per op tensor (op.tensors order; intermediates are no arguments).
// ID_launch takes its workspace from cudaMallocAsync on the stream and frees it there (stream
// ordered, served from the device's memory pool); ID_launch_workspace uses the caller's. Both
// launch the stages in order on the stream and return the first error (cudaSuccess: all queued).
// Only options.name is read. Throws Error for names c_safe.hpp refuses and for a stage whose
// output index is not one variable (or a constant) per dimension (an element written by several
// points could not be one thread's).
Artifact lower_cuda_stages(const Op& op, const CudaCodegenOptions& options = {});
// The ID lower_cuda_stages uses when options.name is empty: "attune_<label>_stages".
std::string cuda_stage_kernel_name(const Op& op);

}  // namespace attune
