// attune CUDA kernel attune_gemm_4096_f16_wmma_32x8x16_f16f32_m1
//
// op gemm_4096_f16
// tensor A[4096, 4096] f16
// tensor B[4096, 4096] f16
// tensor C[4096, 4096] f32
// C[m, n] += A[m, k] * B[k, n]
//
// tensorize wmma_32x8x16_f16f32 with mapping #1 (i<-m j<-n k<-k): A' = A, B' = B, C' = C
//   M = m (4096, tile 32, 128 tiles)
//   N = n (4096, tile 8, 512 tiles)
//   K = k (4096, tile 16, 256 tiles)
// for (no outer spatial loops):
//   for mt < 128, nt < 512:
//     acc[32x8] = 0
//     for kt < 256:
//       stage A'[mt, kt] and B'[kt, nt] (zero outside bounds and padding)
//       acc = wmma_32x8x16_f16f32(A', B', acc)
//     C[mt, nt] = acc  (guarded)
//
// step: {"intrinsic":"wmma_32x8x16_f16f32","kind":"tensorize","loops":{"i":["m"],"j":["n"],"k":["k"]},"mapping":1,"schema_version":1}
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

// attune_gemm_4096_f16_wmma_32x8x16_f16f32_m1: block 64x64x32, 2x2 warps of 1x4 wmma_32x8x16_f16f32 tiles
extern "C" __global__ void __launch_bounds__(128) attune_gemm_4096_f16_wmma_32x8x16_f16f32_m1_kernel(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C) {
  __shared__ __align__(128) __half As[64 * 40];  // A' tile, row-major (M x K)
  __shared__ __align__(128) __half Bs[64 * 40];  // B' tile, column-major (N x K)
  __shared__ __align__(128) float Cs[4][256];  // one accumulator tile per warp on its way out
  const int tid_ = threadIdx.x, warp_ = tid_ / 32, lane_ = tid_ % 32;
  const int wm_ = warp_ / 2, wn_ = warp_ % 2;
  const int m0_ = (int)blockIdx.y * 64, n0_ = (int)blockIdx.x * 64;
  for (int z_ = blockIdx.z; z_ < 1; z_ += gridDim.z) {
    nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 32, 8, 16, float> acc_[1][4];
    for (int i_ = 0; i_ < 1; ++i_)
      for (int j_ = 0; j_ < 4; ++j_) nvcuda::wmma::fill_fragment(acc_[i_][j_], 0);
    for (int k0_ = 0; k0_ < 4096; k0_ += 32) {
      // stage A global -> shared (As)
      for (int e_ = tid_; e_ < 64 * 32; e_ += 128) {
        const int r_ = e_ / 32, c_ = e_ % 32;
        const int f_ = m0_ + r_, fk_ = k0_ + c_;
        __half x_ = __float2half(0.0f);
        if (f_ < 4096 && fk_ < 4096) {
          const int v_m = f_;
          const int v_k = fk_;
          x_ = A[(4096*(v_m) + (v_k))];
        }
        As[r_ * 40 + c_] = x_;
      }
      // stage B global -> shared (Bs)
      for (int e_ = tid_; e_ < 64 * 32; e_ += 128) {
        const int r_ = e_ % 64, c_ = e_ / 64;
        const int f_ = n0_ + r_, fk_ = k0_ + c_;
        __half x_ = __float2half(0.0f);
        if (f_ < 4096 && fk_ < 4096) {
          const int v_n = f_;
          const int v_k = fk_;
          x_ = B[(4096*(v_k) + (v_n))];
        }
        Bs[r_ * 40 + c_] = x_;
      }
      __syncthreads();
      for (int ks_ = 0; ks_ < 2; ++ks_) {
        nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 32, 8, 16, __half, nvcuda::wmma::row_major> a_[1];
        nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 32, 8, 16, __half, nvcuda::wmma::col_major> b_[4];
        for (int i_ = 0; i_ < 1; ++i_)
          nvcuda::wmma::load_matrix_sync(a_[i_], As + (wm_ * 32 + i_ * 32) * 40 + ks_ * 16, 40);
        for (int j_ = 0; j_ < 4; ++j_)
          nvcuda::wmma::load_matrix_sync(b_[j_], Bs + (wn_ * 32 + j_ * 8) * 40 + ks_ * 16, 40);
        for (int i_ = 0; i_ < 1; ++i_)
          for (int j_ = 0; j_ < 4; ++j_) nvcuda::wmma::mma_sync(acc_[i_][j_], a_[i_], b_[j_], acc_[i_][j_]);
      }
      __syncthreads();
    }
    for (int i_ = 0; i_ < 1; ++i_)
      for (int j_ = 0; j_ < 4; ++j_) {
      nvcuda::wmma::store_matrix_sync(Cs[warp_], acc_[i_][j_], 8, nvcuda::wmma::mem_row_major);
      __syncwarp();
      for (int e_ = lane_; e_ < 256; e_ += 32) {
        const int fm_ = m0_ + wm_ * 32 + i_ * 32 + e_ / 8;
        const int fn_ = n0_ + wn_ * 32 + j_ * 8 + e_ % 8;
        const float v_acc_ = Cs[warp_][e_];
        if (fm_ < 4096 && fn_ < 4096) {
          const int v_m = fm_;
          const int v_n = fn_;
          C[(4096*(v_m) + (v_n))] = (float)v_acc_;
        }
      }
      __syncwarp();
    }
  }
}

extern "C" void attune_gemm_4096_f16_wmma_32x8x16_f16f32_m1_launch(void* const* buffers, cudaStream_t stream) {
  dim3 grid(64, 64, 1);
  attune_gemm_4096_f16_wmma_32x8x16_f16f32_m1_kernel<<<grid, 128, 0, stream>>>((const __half*)buffers[0], (const __half*)buffers[1], (float*)buffers[2]);
}
