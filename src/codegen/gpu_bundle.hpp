// codegen/gpu_bundle.hpp — a self-contained folder for checking CUDA kernels on a machine that
// has a GPU and the CUDA toolkit but no attune (scripts/gpu-check.sh runs it).
//
// For each TensorizePlan the bundle holds
//   <id>.cu        the kernel (lower_cuda)
//   <id>_check.cu  a host harness: random inputs, the kernel timed with cudaEvents, a plain C++
//                  reference loop generated from the op spec checked on sampled output
//                  elements, and the vendor library on the same shapes where attune recognises
//                  the op (GEMM: cuBLAS GemmEx; conv2d NCHW/NHWC, f16: cuDNN, compiled only with
//                  -DATTUNE_HAVE_CUDNN). It prints one line
//                  "RESULT|name|intrinsic|mapping|attune_ms|attune_tflops|vendor|vendor_ms|vendor_tflops|max_err|OK"
//   kernels.txt    one line per kernel: id, op spec (one line), intrinsic, mapping
// and for each multi-stage op (softmax, norms, pooling, attention; cuda/stage_harness.cpp)
//   <id>.cu        its kernels, one per stage (lower_cuda_stages)
//   <id>.data      seeded random inputs and the output the reference evaluator (evaluate_stages)
//                  computes from them: the op's tensors in order, raw bytes of their dtypes
//   <id>_check.cu  reads <id>.data from the folder given as its first argument (default "."),
//                  runs <id>_launch, compares every output element (relative to the largest
//                  reference value, 1e-3) and times it; the same RESULT line, intrinsic
//                  "cuda-stages", mapping = the number of stages, no vendor
// Tests: tests/codegen/cuda_compile_test.cpp compiles a bundle where nvcc exists.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/tensorize.hpp"

namespace attune {

// Which vendor routine times the same op: "cublas", "cudnn" or "" (none recognised).
std::string vendor_routine(const Op& op);
// The harness source for `plan`, whose kernel lower_cuda named `id` and lives in `kernel_file`
// (included by relative path).
std::string cuda_harness(const TensorizePlan& plan, const std::string& id, const std::string& kernel_file);
// The harness source for multi-stage op `op`, whose kernels lower_cuda_stages named `id` in
// `kernel_file`, checking them against `data_file` (stage_check_data's bytes).
std::string cuda_stage_harness(const Op& op, const std::string& id, const std::string& kernel_file,
                               const std::string& data_file);
// The op's tensors in order: inputs from make_buffers(op, seed), the output as evaluate_stages
// computes it from them.
std::string stage_check_data(const Op& op, std::uint64_t seed);
// Writes the bundle: the plans, then the multi-stage ops; returns the kernel ids in that order.
// Throws Error when `dir` cannot be written or a stage op is a contraction.
std::vector<std::string> write_gpu_bundle(const std::string& dir, const std::vector<TensorizePlan>& plans,
                                          const std::vector<Op>& stage_ops = {});

}  // namespace attune
