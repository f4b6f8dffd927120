// attune CUDA kernel attune_rn50_c4_s2_b8_f16_wmma_32x8x16_f16f32_m100
//
// op rn50_c4_s2_b8_f16
// tensor I[8, 28, 28, 256] f16
// tensor W[3, 3, 256, 256] f16
// tensor O[8, 14, 14, 256] f32
// O[n, p, q, k] += I[n, p*2 + r - 1, q*2 + s - 1, c] * W[r, s, c, k]
//
// tensorize wmma_32x8x16_f16f32 with mapping #100 (i<-n,p,q j<-k k<-r,s,c): A' = I, B' = W, C' = O
//   M = n*p*q (1568, tile 32, 49 tiles)
//   N = k (256, tile 8, 32 tiles)
//   K = r*s*c (2304, tile 16, 144 tiles)
// for (no outer spatial loops):
//   for mt < 49, nt < 32:
//     acc[32x8] = 0
//     for kt < 144:
//       stage A'[mt, kt] and B'[kt, nt] (zero outside bounds and padding)
//       acc = wmma_32x8x16_f16f32(A', B', acc)
//     O[mt, nt] = acc  (guarded)
//
// step: {"intrinsic":"wmma_32x8x16_f16f32","kind":"tensorize","loops":{"i":["n","p","q"],"j":["k"],"k":["r","s","c"]},"mapping":100,"schema_version":1}
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

// attune_rn50_c4_s2_b8_f16_wmma_32x8x16_f16f32_m100: block 64x64x32, 2x2 warps of 1x4 wmma_32x8x16_f16f32 tiles
extern "C" __global__ void __launch_bounds__(128) attune_rn50_c4_s2_b8_f16_wmma_32x8x16_f16f32_m100_kernel(const __half* __restrict__ I, const __half* __restrict__ W, float* __restrict__ O) {
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
    for (int k0_ = 0; k0_ < 2304; k0_ += 32) {
      // stage I global -> shared (As)
      for (int e_ = tid_; e_ < 64 * 32; e_ += 128) {
        const int r_ = e_ / 32, c_ = e_ % 32;
        const int f_ = m0_ + r_, fk_ = k0_ + c_;
        __half x_ = __float2half(0.0f);
        if (f_ < 1568 && fk_ < 2304) {
          const int v_n = (f_ / 196);
          const int v_p = ((f_ / 14) % 14);
          const int v_q = (f_ % 14);
          const int v_r = (fk_ / 768);
          const int v_s = ((fk_ / 256) % 3);
          const int v_c = (fk_ % 256);
          if ((2*v_p + v_r - 1) >= 0 && (2*v_q + v_s - 1) >= 0) x_ = I[(200704*(v_n) + 7168*(2*v_p + v_r - 1) + 256*(2*v_q + v_s - 1) + (v_c))];
        }
        As[r_ * 40 + c_] = x_;
      }
      // stage W global -> shared (Bs)
      for (int e_ = tid_; e_ < 64 * 32; e_ += 128) {
        const int r_ = e_ % 64, c_ = e_ / 64;
        const int f_ = n0_ + r_, fk_ = k0_ + c_;
        __half x_ = __float2half(0.0f);
        if (f_ < 256 && fk_ < 2304) {
          const int v_k = f_;
          const int v_r = (fk_ / 768);
          const int v_s = ((fk_ / 256) % 3);
          const int v_c = (fk_ % 256);
          x_ = W[(196608*(v_r) + 65536*(v_s) + 256*(v_c) + (v_k))];
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
        if (fm_ < 1568 && fn_ < 256) {
          const int v_n = (fm_ / 196);
          const int v_p = ((fm_ / 14) % 14);
          const int v_q = (fm_ % 14);
          const int v_k = fn_;
          O[(50176*(v_n) + 3584*(v_p) + 256*(v_q) + (v_k))] = (float)v_acc_;
        }
      }
      __syncwarp();
    }
  }
}

extern "C" void attune_rn50_c4_s2_b8_f16_wmma_32x8x16_f16f32_m100_launch(void* const* buffers, cudaStream_t stream) {
  dim3 grid(4, 25, 1);
  attune_rn50_c4_s2_b8_f16_wmma_32x8x16_f16f32_m100_kernel<<<grid, 128, 0, stream>>>((const __half*)buffers[0], (const __half*)buffers[1], (float*)buffers[2]);
}
