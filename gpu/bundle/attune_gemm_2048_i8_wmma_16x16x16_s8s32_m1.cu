// attune CUDA kernel attune_gemm_2048_i8_wmma_16x16x16_s8s32_m1
//
// op gemm_2048_i8
// tensor A[2048, 2048] i8
// tensor B[2048, 2048] i8
// tensor C[2048, 2048] i32
// C[m, n] += A[m, k] * B[k, n]
//
// tensorize wmma_16x16x16_s8s32 with mapping #1 (i<-m j<-n k<-k): A' = A, B' = B, C' = C
//   M = m (2048, tile 16, 128 tiles)
//   N = n (2048, tile 16, 128 tiles)
//   K = k (2048, tile 16, 128 tiles)
// for (no outer spatial loops):
//   for mt < 128, nt < 128:
//     acc[16x16] = 0
//     for kt < 128:
//       stage A'[mt, kt] and B'[kt, nt] (zero outside bounds and padding)
//       acc = wmma_16x16x16_s8s32(A', B', acc)
//     C[mt, nt] = acc  (guarded)
//
// step: {"intrinsic":"wmma_16x16x16_s8s32","kind":"tensorize","loops":{"i":["m"],"j":["n"],"k":["k"]},"mapping":1,"schema_version":1}
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

// attune_gemm_2048_i8_wmma_16x16x16_s8s32_m1: block 64x64x16, 2x2 warps of 2x2 wmma_16x16x16_s8s32 tiles
extern "C" __global__ void __launch_bounds__(128) attune_gemm_2048_i8_wmma_16x16x16_s8s32_m1_kernel(const signed char* __restrict__ A, const signed char* __restrict__ B, int* __restrict__ C) {
  __shared__ __align__(128) signed char As[64 * 32];  // A' tile, row-major (M x K)
  __shared__ __align__(128) signed char Bs[64 * 32];  // B' tile, column-major (N x K)
  __shared__ __align__(128) int Cs[4][256];  // one accumulator tile per warp on its way out
  const int tid_ = threadIdx.x, warp_ = tid_ / 32, lane_ = tid_ % 32;
  const int wm_ = warp_ / 2, wn_ = warp_ % 2;
  const int m0_ = (int)blockIdx.y * 64, n0_ = (int)blockIdx.x * 64;
  for (int z_ = blockIdx.z; z_ < 1; z_ += gridDim.z) {
    nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, int> acc_[2][2];
    for (int i_ = 0; i_ < 2; ++i_)
      for (int j_ = 0; j_ < 2; ++j_) nvcuda::wmma::fill_fragment(acc_[i_][j_], 0);
    for (int k0_ = 0; k0_ < 2048; k0_ += 16) {
      // stage A global -> shared (As)
      for (int e_ = tid_; e_ < 64 * 16; e_ += 128) {
        const int r_ = e_ / 16, c_ = e_ % 16;
        const int f_ = m0_ + r_, fk_ = k0_ + c_;
        signed char x_ = 0;
        if (f_ < 2048 && fk_ < 2048) {
          const int v_m = f_;
          const int v_k = fk_;
          x_ = A[(2048*(v_m) + (v_k))];
        }
        As[r_ * 32 + c_] = x_;
      }
      // stage B global -> shared (Bs)
      for (int e_ = tid_; e_ < 64 * 16; e_ += 128) {
        const int r_ = e_ % 64, c_ = e_ / 64;
        const int f_ = n0_ + r_, fk_ = k0_ + c_;
        signed char x_ = 0;
        if (f_ < 2048 && fk_ < 2048) {
          const int v_n = f_;
          const int v_k = fk_;
          x_ = B[(2048*(v_k) + (v_n))];
        }
        Bs[r_ * 32 + c_] = x_;
      }
      __syncthreads();
      for (int ks_ = 0; ks_ < 1; ++ks_) {
        nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, signed char, nvcuda::wmma::row_major> a_[2];
        nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, signed char, nvcuda::wmma::col_major> b_[2];
        for (int i_ = 0; i_ < 2; ++i_)
          nvcuda::wmma::load_matrix_sync(a_[i_], As + (wm_ * 32 + i_ * 16) * 32 + ks_ * 16, 32);
        for (int j_ = 0; j_ < 2; ++j_)
          nvcuda::wmma::load_matrix_sync(b_[j_], Bs + (wn_ * 32 + j_ * 16) * 32 + ks_ * 16, 32);
        for (int i_ = 0; i_ < 2; ++i_)
          for (int j_ = 0; j_ < 2; ++j_) nvcuda::wmma::mma_sync(acc_[i_][j_], a_[i_], b_[j_], acc_[i_][j_]);
      }
      __syncthreads();
    }
    for (int i_ = 0; i_ < 2; ++i_)
      for (int j_ = 0; j_ < 2; ++j_) {
      nvcuda::wmma::store_matrix_sync(Cs[warp_], acc_[i_][j_], 16, nvcuda::wmma::mem_row_major);
      __syncwarp();
      for (int e_ = lane_; e_ < 256; e_ += 32) {
        const int fm_ = m0_ + wm_ * 32 + i_ * 16 + e_ / 16;
        const int fn_ = n0_ + wn_ * 32 + j_ * 16 + e_ % 16;
        const int v_acc_ = Cs[warp_][e_];
        if (fm_ < 2048 && fn_ < 2048) {
          const int v_m = fm_;
          const int v_n = fn_;
          C[(2048*(v_m) + (v_n))] = (int)v_acc_;
        }
      }
      __syncwarp();
    }
  }
}

extern "C" void attune_gemm_2048_i8_wmma_16x16x16_s8s32_m1_launch(void* const* buffers, cudaStream_t stream) {
  dim3 grid(32, 32, 1);
  attune_gemm_2048_i8_wmma_16x16x16_s8s32_m1_kernel<<<grid, 128, 0, stream>>>((const signed char*)buffers[0], (const signed char*)buffers[1], (int*)buffers[2]);
}
