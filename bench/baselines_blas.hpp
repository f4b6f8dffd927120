// baselines_blas.hpp — OpenBLAS and BLIS baselines for the GEMM families, and im2col + OpenBLAS
// for the capsule convolution (which oneDNN has no primitive for).
#pragma once

#include <string>
#include <vector>

#include "workload.hpp"

namespace bench {

// Thread count of both BLAS libraries (OpenBLAS's own pool, BLIS's OpenMP regions).
void blas_set_threads(int threads);

// The shared object that the process-wide lookup of `symbol` resolves to (dlsym + dladdr):
// OpenBLAS and BLIS both export cblas_sgemm, and link order decides who answers.
std::string symbol_origin(const char* symbol);

// Baselines for `w`, reading its inputs from `bufs` (attune's tensors, op.tensors order):
//   gemm, batch_matmul  OpenBLAS cblas_sgemm (sgemv when M = 1), BLIS bli_sgemm (bli_sgemv)
//   conv2d_capsule      im2col + OpenBLAS sgemm (weights re-laid out once, outside the timing)
// Empty for other families, and for ops with an epilogue (the libraries are called without one).
std::vector<Baseline> blas_baselines(const Workload& w, const std::vector<attune::Buffer>& bufs);

}  // namespace bench
