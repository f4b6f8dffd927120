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
// Tests: tests/codegen/cuda_compile_test.cpp compiles a bundle where nvcc exists.
#pragma once

#include <string>
#include <vector>

#include "schedule/tensorize.hpp"

namespace attune {

// Which vendor routine times the same op: "cublas", "cudnn" or "" (none recognised).
std::string vendor_routine(const Op& op);
// The harness source for `plan`, whose kernel lower_cuda named `id` and lives in `kernel_file`
// (included by relative path).
std::string cuda_harness(const TensorizePlan& plan, const std::string& id, const std::string& kernel_file);
// Writes the bundle; returns the kernel ids in order. Throws Error when `dir` cannot be written.
std::vector<std::string> write_gpu_bundle(const std::string& dir, const std::vector<TensorizePlan>& plans);

}  // namespace attune
