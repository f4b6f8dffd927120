// attune CUDA kernel attune_rn50_c2_3x3_f16_mma_m16n8k16_f16f32_m96
//
// op rn50_c2_3x3_f16
// tensor I[1, 64, 56, 56] f16
// tensor W[64, 64, 3, 3] f16
// tensor O[1, 64, 56, 56] f32
// O[n, k, p, q] += I[n, c, p + r - 1, q + s - 1] * W[k, c, r, s]
//
// tensorize mma_m16n8k16_f16f32 with mapping #96 (i<-p,q j<-k k<-c,r,s): A' = I, B' = W, C' = O
//   M = p*q (3136, tile 16, 196 tiles)
//   N = k (64, tile 8, 8 tiles)
//   K = c*r*s (576, tile 16, 36 tiles)
// for n:
//   for mt < 196, nt < 8:
//     acc[16x8] = 0
//     for kt < 36:
//       stage A'[mt, kt] and B'[kt, nt] (zero outside bounds and padding)
//       acc = mma_m16n8k16_f16f32(A', B', acc)
//     O[mt, nt] = acc  (guarded)
//
// step: {"intrinsic":"mma_m16n8k16_f16f32","kind":"tensorize","loops":{"i":["p","q"],"j":["k"],"k":["c","r","s"]},"mapping":96,"schema_version":1}
#include <cuda_fp16.h>
#include <cuda_runtime.h>

// attune_rn50_c2_3x3_f16_mma_m16n8k16_f16f32_m96: block 64x64x32, 2x2 warps of 2x4 mma_m16n8k16_f16f32 tiles
extern "C" __global__ void __launch_bounds__(128) attune_rn50_c2_3x3_f16_mma_m16n8k16_f16f32_m96_kernel(const __half* __restrict__ I, const __half* __restrict__ W, float* __restrict__ O) {
  __shared__ __align__(128) __half As[64 * 40];  // A' tile, row-major (M x K)
  __shared__ __align__(128) __half Bs[64 * 40];  // B' tile, column-major (N x K)
  const int tid_ = threadIdx.x, warp_ = tid_ / 32, lane_ = tid_ % 32;
  const int wm_ = warp_ / 2, wn_ = warp_ % 2;
  const int m0_ = (int)blockIdx.y * 64, n0_ = (int)blockIdx.x * 64;
  for (int z_ = blockIdx.z; z_ < 1; z_ += gridDim.z) {
    const int v_n = 0;
    float acc_[2][4][4] = {};
    for (int k0_ = 0; k0_ < 576; k0_ += 32) {
      // stage I global -> shared (As)
      for (int e_ = tid_; e_ < 64 * 32; e_ += 128) {
        const int r_ = e_ / 32, c_ = e_ % 32;
        const int f_ = m0_ + r_, fk_ = k0_ + c_;
        __half x_ = __float2half(0.0f);
        if (f_ < 3136 && fk_ < 576) {
          const int v_p = (f_ / 56);
          const int v_q = (f_ % 56);
          const int v_c = (fk_ / 9);
          const int v_r = ((fk_ / 3) % 3);
          const int v_s = (fk_ % 3);
          if ((v_p + v_r - 1) >= 0 && (v_p + v_r - 1) < 56 && (v_q + v_s - 1) >= 0 && (v_q + v_s - 1) < 56) x_ = I[(200704*(v_n) + 3136*(v_c) + 56*(v_p + v_r - 1) + (v_q + v_s - 1))];
        }
        As[r_ * 40 + c_] = x_;
      }
      // stage W global -> shared (Bs)
      for (int e_ = tid_; e_ < 64 * 32; e_ += 128) {
        const int r_ = e_ % 64, c_ = e_ / 64;
        const int f_ = n0_ + r_, fk_ = k0_ + c_;
        __half x_ = __float2half(0.0f);
        if (f_ < 64 && fk_ < 576) {
          const int v_k = f_;
          const int v_c = (fk_ / 9);
          const int v_r = ((fk_ / 3) % 3);
          const int v_s = (fk_ % 3);
          x_ = W[(576*(v_k) + 9*(v_c) + 3*(v_r) + (v_s))];
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
      if (fm_ < 3136 && fn_ < 64) {
        const int v_p = (fm_ / 56);
        const int v_q = (fm_ % 56);
        const int v_k = fn_;
        O[(200704*(v_n) + 3136*(v_k) + 56*(v_p) + (v_q))] = (float)v_acc_;
      }
    }
  }
}

extern "C" void attune_rn50_c2_3x3_f16_mma_m16n8k16_f16f32_m96_launch(void* const* buffers, cudaStream_t stream) {
  dim3 grid(1, 49, 1);
  attune_rn50_c2_3x3_f16_mma_m16n8k16_f16f32_m96_kernel<<<grid, 128, 0, stream>>>((const __half*)buffers[0], (const __half*)buffers[1], (float*)buffers[2]);
}
