// attune CUDA kernel attune_gemm_1000_f16_mma_m16n8k16_f16f32_m1
//
// op gemm_1000_f16
// tensor A[1000, 1000] f16
// tensor B[1000, 1000] f16
// tensor C[1000, 1000] f32
// C[m, n] += A[m, k] * B[k, n]
//
// tensorize mma_m16n8k16_f16f32 with mapping #1 (i<-m j<-n k<-k): A' = A, B' = B, C' = C
//   M = m (1000, tile 16, 63 tiles, padded to 1008)
//   N = n (1000, tile 8, 125 tiles)
//   K = k (1000, tile 16, 63 tiles, padded to 1008)
// for (no outer spatial loops):
//   for mt < 63, nt < 125:
//     acc[16x8] = 0
//     for kt < 63:
//       stage A'[mt, kt] and B'[kt, nt] (zero outside bounds and padding)
//       acc = mma_m16n8k16_f16f32(A', B', acc)
//     C[mt, nt] = acc  (guarded)
//
// step: {"intrinsic":"mma_m16n8k16_f16f32","kind":"tensorize","loops":{"i":["m"],"j":["n"],"k":["k"]},"mapping":1,"schema_version":1}
#include <cuda_fp16.h>
#include <cuda_runtime.h>

// attune_gemm_1000_f16_mma_m16n8k16_f16f32_m1: block 64x64x32, 2x2 warps of 2x4 mma_m16n8k16_f16f32 tiles
extern "C" __global__ void __launch_bounds__(128) attune_gemm_1000_f16_mma_m16n8k16_f16f32_m1_kernel(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C) {
  __shared__ __align__(128) __half As[64 * 40];  // A' tile, row-major (M x K)
  __shared__ __align__(128) __half Bs[64 * 40];  // B' tile, column-major (N x K)
  const int tid_ = threadIdx.x, warp_ = tid_ / 32, lane_ = tid_ % 32;
  const int wm_ = warp_ / 2, wn_ = warp_ % 2;
  const int m0_ = (int)blockIdx.y * 64, n0_ = (int)blockIdx.x * 64;
  for (int z_ = blockIdx.z; z_ < 1; z_ += gridDim.z) {
    float acc_[2][4][4] = {};
    for (int k0_ = 0; k0_ < 1000; k0_ += 32) {
      // stage A global -> shared (As)
      for (int e_ = tid_; e_ < 64 * 32; e_ += 128) {
        const int r_ = e_ / 32, c_ = e_ % 32;
        const int f_ = m0_ + r_, fk_ = k0_ + c_;
        __half x_ = __float2half(0.0f);
        if (f_ < 1000 && fk_ < 1000) {
          const int v_m = f_;
          const int v_k = fk_;
          x_ = A[(1000*(v_m) + (v_k))];
        }
        As[r_ * 40 + c_] = x_;
      }
      // stage B global -> shared (Bs)
      for (int e_ = tid_; e_ < 64 * 32; e_ += 128) {
        const int r_ = e_ % 64, c_ = e_ / 64;
        const int f_ = n0_ + r_, fk_ = k0_ + c_;
        __half x_ = __float2half(0.0f);
        if (f_ < 1000 && fk_ < 1000) {
          const int v_n = f_;
          const int v_k = fk_;
          x_ = B[(1000*(v_k) + (v_n))];
        }
        Bs[r_ * 40 + c_] = x_;
      }
      __syncthreads();
      const int g_ = lane_ >> 2, q_ = lane_ & 3;
      for (int ks_ = 0; ks_ < 2; ++ks_) {
        unsigned a_[2][4], b_[4][2];
        for (int i_ = 0; i_ < 2; ++i_) {
          const __half* pa_ = As + (wm_ * 32 + i_ * 16 + g_) * 40 + ks_ * 16 + q_ * 2;
          a_[i_][0] = *(const unsigned*)(pa_);
          a_[i_][1] = *(const unsigned*)(pa_ + 8 * 40);
          a_[i_][2] = *(const unsigned*)(pa_ + 8);
          a_[i_][3] = *(const unsigned*)(pa_ + 8 * 40 + 8);
        }
        for (int j_ = 0; j_ < 4; ++j_) {
          const __half* pb_ = Bs + (wn_ * 32 + j_ * 8 + g_) * 40 + ks_ * 16 + q_ * 2;
          b_[j_][0] = *(const unsigned*)(pb_);
          b_[j_][1] = *(const unsigned*)(pb_ + 8);
        }
        for (int i_ = 0; i_ < 2; ++i_)
          for (int j_ = 0; j_ < 4; ++j_) {
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
              : "+f"(acc_[i_][j_][0]), "+f"(acc_[i_][j_][1]), "+f"(acc_[i_][j_][2]), "+f"(acc_[i_][j_][3])
              : "r"(a_[i_][0]), "r"(a_[i_][1]), "r"(a_[i_][2]), "r"(a_[i_][3]), "r"(b_[j_][0]), "r"(b_[j_][1]));
        }
      }
      __syncthreads();
    }
    const int g_ = lane_ >> 2, q_ = lane_ & 3;
    for (int i_ = 0; i_ < 2; ++i_)
      for (int j_ = 0; j_ < 4; ++j_)
        for (int e_ = 0; e_ < 4; ++e_) {
      const int fm_ = m0_ + wm_ * 32 + i_ * 16 + g_ + (e_ >= 2 ? 8 : 0);
      const int fn_ = n0_ + wn_ * 32 + j_ * 8 + q_ * 2 + (e_ & 1);
      const float v_acc_ = acc_[i_][j_][e_];
      if (fm_ < 1000 && fn_ < 1000) {
        const int v_m = fm_;
        const int v_n = fn_;
        C[(1000*(v_m) + (v_n))] = (float)v_acc_;
      }
    }
  }
}

extern "C" void attune_gemm_1000_f16_mma_m16n8k16_f16f32_m1_launch(void* const* buffers, cudaStream_t stream) {
  dim3 grid(16, 16, 1);
  attune_gemm_1000_f16_mma_m16n8k16_f16f32_m1_kernel<<<grid, 128, 0, stream>>>((const __half*)buffers[0], (const __half*)buffers[1], (float*)buffers[2]);
}
