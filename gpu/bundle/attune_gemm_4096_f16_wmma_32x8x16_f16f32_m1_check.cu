// attune GPU check harness for attune_gemm_4096_f16_wmma_32x8x16_f16f32_m1 (generated; see include/attune/gpu_bundle.hpp)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#ifdef ATTUNE_HAVE_CUDNN
#include <cudnn.h>
#endif

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));   \
      std::exit(2);                                                                      \
    }                                                                                    \
  } while (0)

inline double to_d(float x) { return x; }
inline double to_d(__half x) { return static_cast<double>(__half2float(x)); }
inline double to_d(signed char x) { return x; }
inline double to_d(unsigned char x) { return x; }
inline double to_d(int x) { return x; }
// The ranges attune's Buffer::fill_random uses: small integers keep int32 sums exact.
inline void fill(float& d, std::mt19937& g) { d = std::uniform_real_distribution<float>(-1, 1)(g); }
inline void fill(__half& d, std::mt19937& g) { d = __float2half(std::uniform_real_distribution<float>(-1, 1)(g)); }
inline void fill(signed char& d, std::mt19937& g) { d = (signed char)std::uniform_int_distribution<int>(-8, 7)(g); }
inline void fill(unsigned char& d, std::mt19937& g) { d = (unsigned char)std::uniform_int_distribution<int>(0, 15)(g); }
inline void fill(int& d, std::mt19937& g) { d = std::uniform_int_distribution<int>(-64, 63)(g); }

// Milliseconds per call of f(): a few warm-up calls, then enough calls for about 200 ms.
template <class F>
static double time_ms(F f) {
  for (int i = 0; i < 3; ++i) f();
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  f();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float one = 0;
  CK(cudaEventElapsedTime(&one, a, b));
  int iters = one > 0 ? static_cast<int>(200.0 / one) : 1000;
  iters = iters < 5 ? 5 : iters > 2000 ? 2000 : iters;
  CK(cudaEventRecord(a));
  for (int i = 0; i < iters; ++i) f();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float total = 0;
  CK(cudaEventElapsedTime(&total, a, b));
  CK(cudaGetLastError());
  return total / iters;
}

#include "attune_gemm_4096_f16_wmma_32x8x16_f16f32_m1.cu"

// C[m, n] for one point of the spatial variables (from the spec).
static double reference_at(const __half* A, const __half* B, long long v_m, long long v_n) {
  double s_ = 0;
  for (long long v_k = 0; v_k < 4096; ++v_k)
    do {
      double x_ = 1;
      x_ *= to_d(A[(4096*(v_m) + (v_k))]);
      x_ *= to_d(B[(4096*(v_k) + (v_n))]);
      s_ += x_;
    } while (0);
  return s_;
}

int main() {
  std::mt19937 gen(1234);
  std::vector<__half> h_A(16777216);
  for (auto& x : h_A) fill(x, gen);
  __half* d_A = nullptr;
  CK(cudaMalloc(&d_A, h_A.size() * sizeof(h_A[0])));
  CK(cudaMemcpy(d_A, h_A.data(), h_A.size() * sizeof(h_A[0]), cudaMemcpyHostToDevice));
  std::vector<__half> h_B(16777216);
  for (auto& x : h_B) fill(x, gen);
  __half* d_B = nullptr;
  CK(cudaMalloc(&d_B, h_B.size() * sizeof(h_B[0])));
  CK(cudaMemcpy(d_B, h_B.data(), h_B.size() * sizeof(h_B[0]), cudaMemcpyHostToDevice));
  std::vector<float> h_C(16777216);
  float* d_C = nullptr;
  CK(cudaMalloc(&d_C, h_C.size() * sizeof(h_C[0])));
  CK(cudaMemset(d_C, 0, h_C.size() * sizeof(h_C[0])));
  void* bufs[] = {d_A, d_B, d_C};
  attune_gemm_4096_f16_wmma_32x8x16_f16f32_m1_launch(bufs, 0);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h_C.data(), d_C, h_C.size() * sizeof(h_C[0]), cudaMemcpyDeviceToHost));

  // Check sampled output elements against the reference loop.
  double max_err = 0, max_ref = 0;
  std::mt19937 pick(99);
  for (int s = 0; s < 4096; ++s) {
    const long long v_m = s == 0 ? 0 : s == 1 ? 4095 : std::uniform_int_distribution<long long>(0, 4095)(pick);
    const long long v_n = s == 0 ? 0 : s == 1 ? 4095 : std::uniform_int_distribution<long long>(0, 4095)(pick);
    const double want = reference_at(h_A.data(), h_B.data(), v_m, v_n);
    const double got = to_d(h_C[(4096*(v_m) + (v_n))]);
    max_err = std::fmax(max_err, std::fabs(got - want));
    max_ref = std::fmax(max_ref, std::fabs(want));
  }
  const double rel_err = max_err / (max_ref > 1 ? max_ref : 1);
  const bool ok = rel_err <= 1e-2;

  const double flops = 1.37439e+11;
  const double ms = time_ms([&] { attune_gemm_4096_f16_wmma_32x8x16_f16f32_m1_launch(bufs, 0); });
  const char* vendor = "-";
  double vendor_ms = 0;
  {  // cuBLAS on the same shapes: row-major C = A B is column-major C^T = B^T A^T
    cublasHandle_t h;
    if (cublasCreate(&h) == CUBLAS_STATUS_SUCCESS) {
      void* d_vendor = nullptr;
      CK(cudaMalloc(&d_vendor, h_C.size() * sizeof(h_C[0])));
      const float alpha = 1, beta = 0;
      auto run = [&] { return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4096, 4096, 4096, &alpha, d_B, CUDA_R_16F, 4096, d_A, CUDA_R_16F, 4096, &beta, d_vendor, CUDA_R_32F, 4096, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT); };
      if (run() == CUBLAS_STATUS_SUCCESS) {
        vendor = "cuBLAS";
        vendor_ms = time_ms([&] { run(); });
      }
      CK(cudaFree(d_vendor));
      cublasDestroy(h);
    }
  }
  std::printf("RESULT|%s|%s|%d|%.4f|%.2f|%s|%.4f|%.2f|%.3g|%s\n", "gemm_4096_f16", "wmma_32x8x16_f16f32", 1, ms, flops / (ms * 1e-3) / 1e12, vendor, vendor_ms, vendor_ms > 0 ? flops / (vendor_ms * 1e-3) / 1e12 : 0.0, rel_err, ok ? "OK" : "FAIL");
  return ok ? 0 : 1;
}
