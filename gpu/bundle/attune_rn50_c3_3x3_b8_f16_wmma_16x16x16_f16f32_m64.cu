// attune CUDA kernel attune_rn50_c3_3x3_b8_f16_wmma_16x16x16_f16f32_m64
//
// op rn50_c3_3x3_b8_f16
// tensor I[8, 28, 28, 128] f16
// tensor W[3, 3, 128, 128] f16
// tensor O[8, 28, 28, 128] f32
// O[n, p, q, k] += I[n, p + r - 1, q + s - 1, c] * W[r, s, c, k]
//
// tensorize wmma_16x16x16_f16f32 with mapping #64 (i<-n,p,q j<-k k<-r,s,c): A' = I, B' = W, C' = O
//   M = n*p*q (6272, tile 16, 392 tiles)
//   N = k (128, tile 16, 8 tiles)
//   K = r*s*c (1152, tile 16, 72 tiles)
// for (no outer spatial loops):
//   for mt < 392, nt < 8:
//     acc[16x16] = 0
//     for kt < 72:
//       stage A'[mt, kt] and B'[kt, nt] (zero outside bounds and padding)
//       acc = wmma_16x16x16_f16f32(A', B', acc)
//     O[mt, nt] = acc  (guarded)
//
// step: {"intrinsic":"wmma_16x16x16_f16f32","kind":"tensorize","loops":{"i":["n","p","q"],"j":["k"],"k":["r","s","c"]},"mapping":64,"schema_version":1}
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

// attune_rn50_c3_3x3_b8_f16_wmma_16x16x16_f16f32_m64: block 64x64x32, 2x2 warps of 2x2 wmma_16x16x16_f16f32 tiles
extern "C" __global__ void __launch_bounds__(128) attune_rn50_c3_3x3_b8_f16_wmma_16x16x16_f16f32_m64_kernel(const __half* __restrict__ I, const __half* __restrict__ W, float* __restrict__ O) {
  __shared__ __align__(128) __half As[64 * 40];  // A' tile, row-major (M x K)
  __shared__ __align__(128) __half Bs[64 * 40];  // B' tile, column-major (N x K)
  __shared__ __align__(128) float Cs[4][256];  // one accumulator tile per warp on its way out
  const int tid_ = threadIdx.x, warp_ = tid_ / 32, lane_ = tid_ % 32;
  const int wm_ = warp_ / 2, wn_ = warp_ % 2;
  const int m0_ = (int)blockIdx.y * 64, n0_ = (int)blockIdx.x * 64;
  for (int z_ = blockIdx.z; z_ < 1; z_ += gridDim.z) {
    nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> acc_[2][2];
    for (int i_ = 0; i_ < 2; ++i_)
      for (int j_ = 0; j_ < 2; ++j_) nvcuda::wmma::fill_fragment(acc_[i_][j_], 0);
    for (int k0_ = 0; k0_ < 1152; k0_ += 32) {
      // stage I global -> shared (As)
      for (int e_ = tid_; e_ < 64 * 32; e_ += 128) {
        const int r_ = e_ / 32, c_ = e_ % 32;
        const int f_ = m0_ + r_, fk_ = k0_ + c_;
        __half x_ = __float2half(0.0f);
        if (f_ < 6272 && fk_ < 1152) {
          const int v_n = (f_ / 784);
          const int v_p = ((f_ / 28) % 28);
          const int v_q = (f_ % 28);
          const int v_r = (fk_ / 384);
          const int v_s = ((fk_ / 128) % 3);
          const int v_c = (fk_ % 128);
          if ((v_p + v_r - 1) >= 0 && (v_p + v_r - 1) < 28 && (v_q + v_s - 1) >= 0 && (v_q + v_s - 1) < 28) x_ = I[(100352*(v_n) + 3584*(v_p + v_r - 1) + 128*(v_q + v_s - 1) + (v_c))];
        }
        As[r_ * 40 + c_] = x_;
      }
      // stage W global -> shared (Bs)
      for (int e_ = tid_; e_ < 64 * 32; e_ += 128) {
        const int r_ = e_ % 64, c_ = e_ / 64;
        const int f_ = n0_ + r_, fk_ = k0_ + c_;
        __half x_ = __float2half(0.0f);
        if (f_ < 128 && fk_ < 1152) {
          const int v_k = f_;
          const int v_r = (fk_ / 384);
          const int v_s = ((fk_ / 128) % 3);
          const int v_c = (fk_ % 128);
          x_ = W[(49152*(v_r) + 16384*(v_s) + 128*(v_c) + (v_k))];
        }
        Bs[r_ * 40 + c_] = x_;
      }
      __syncthreads();
      for (int ks_ = 0; ks_ < 2; ++ks_) {
        nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __half, nvcuda::wmma::row_major> a_[2];
        nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, __half, nvcuda::wmma::col_major> b_[2];
        for (int i_ = 0; i_ < 2; ++i_)
          nvcuda::wmma::load_matrix_sync(a_[i_], As + (wm_ * 32 + i_ * 16) * 40 + ks_ * 16, 40);
        for (int j_ = 0; j_ < 2; ++j_)
          nvcuda::wmma::load_matrix_sync(b_[j_], Bs + (wn_ * 32 + j_ * 16) * 40 + ks_ * 16, 40);
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
        const float v_acc_ = Cs[warp_][e_];
        if (fm_ < 6272 && fn_ < 128) {
          const int v_n = (fm_ / 784);
          const int v_p = ((fm_ / 28) % 28);
          const int v_q = (fm_ % 28);
          const int v_k = fn_;
          O[(100352*(v_n) + 3584*(v_p) + 128*(v_q) + (v_k))] = (float)v_acc_;
        }
      }
      __syncwarp();
    }
  }
}

extern "C" void attune_rn50_c3_3x3_b8_f16_wmma_16x16x16_f16f32_m64_launch(void* const* buffers, cudaStream_t stream) {
  dim3 grid(2, 98, 1);
  attune_rn50_c3_3x3_b8_f16_wmma_16x16x16_f16f32_m64_kernel<<<grid, 128, 0, stream>>>((const __half*)buffers[0], (const __half*)buffers[1], (float*)buffers[2]);
}
