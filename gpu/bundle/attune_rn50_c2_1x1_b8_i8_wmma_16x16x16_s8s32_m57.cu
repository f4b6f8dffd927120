// attune CUDA kernel attune_rn50_c2_1x1_b8_i8_wmma_16x16x16_s8s32_m57
//
// op rn50_c2_1x1_b8_i8
// tensor I[8, 56, 56, 64] i8
// tensor W[1, 1, 64, 256] i8
// tensor O[8, 56, 56, 256] i32
// O[n, p, q, k] += I[n, p + r, q + s, c] * W[r, s, c, k]
//
// tensorize wmma_16x16x16_s8s32 with mapping #57 (i<-n,p,q j<-k k<-c): A' = I, B' = W, C' = O
//   M = n*p*q (25088, tile 16, 1568 tiles)
//   N = k (256, tile 16, 16 tiles)
//   K = c (64, tile 16, 4 tiles)
// for (no outer spatial loops):
//   for mt < 1568, nt < 16:
//     acc[16x16] = 0
//     for r, s, kt < 4:
//       stage A'[mt, kt] and B'[kt, nt] (zero outside bounds and padding)
//       acc = wmma_16x16x16_s8s32(A', B', acc)
//     O[mt, nt] = acc  (guarded)
//
// step: {"intrinsic":"wmma_16x16x16_s8s32","kind":"tensorize","loops":{"i":["n","p","q"],"j":["k"],"k":["c"]},"mapping":57,"schema_version":1}
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

// attune_rn50_c2_1x1_b8_i8_wmma_16x16x16_s8s32_m57: block 64x64x16, 2x2 warps of 2x2 wmma_16x16x16_s8s32 tiles
extern "C" __global__ void __launch_bounds__(128) attune_rn50_c2_1x1_b8_i8_wmma_16x16x16_s8s32_m57_kernel(const signed char* __restrict__ I, const signed char* __restrict__ W, int* __restrict__ O) {
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
    for (int v_r = 0; v_r < 1; ++v_r) {
      for (int v_s = 0; v_s < 1; ++v_s) {
        for (int k0_ = 0; k0_ < 64; k0_ += 16) {
          // stage I global -> shared (As)
          for (int e_ = tid_; e_ < 64 * 16; e_ += 128) {
            const int r_ = e_ / 16, c_ = e_ % 16;
            const int f_ = m0_ + r_, fk_ = k0_ + c_;
            signed char x_ = 0;
            if (f_ < 25088 && fk_ < 64) {
              const int v_n = (f_ / 3136);
              const int v_p = ((f_ / 56) % 56);
              const int v_q = (f_ % 56);
              const int v_c = fk_;
              x_ = I[(200704*(v_n) + 3584*(v_p + v_r) + 64*(v_q + v_s) + (v_c))];
            }
            As[r_ * 32 + c_] = x_;
          }
          // stage W global -> shared (Bs)
          for (int e_ = tid_; e_ < 64 * 16; e_ += 128) {
            const int r_ = e_ % 64, c_ = e_ / 64;
            const int f_ = n0_ + r_, fk_ = k0_ + c_;
            signed char x_ = 0;
            if (f_ < 256 && fk_ < 64) {
              const int v_k = f_;
              const int v_c = fk_;
              x_ = W[(16384*(v_r) + 16384*(v_s) + 256*(v_c) + (v_k))];
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
      }
    }
    for (int i_ = 0; i_ < 2; ++i_)
      for (int j_ = 0; j_ < 2; ++j_) {
      nvcuda::wmma::store_matrix_sync(Cs[warp_], acc_[i_][j_], 16, nvcuda::wmma::mem_row_major);
      __syncwarp();
      for (int e_ = lane_; e_ < 256; e_ += 32) {
        const int fm_ = m0_ + wm_ * 32 + i_ * 16 + e_ / 16;
        const int fn_ = n0_ + wn_ * 32 + j_ * 16 + e_ % 16;
        const int v_acc_ = Cs[warp_][e_];
        if (fm_ < 25088 && fn_ < 256) {
          const int v_n = (fm_ / 3136);
          const int v_p = ((fm_ / 56) % 56);
          const int v_q = (fm_ % 56);
          const int v_k = fn_;
          O[(802816*(v_n) + 14336*(v_p) + 256*(v_q) + (v_k))] = (int)v_acc_;
        }
      }
      __syncwarp();
    }
  }
}

extern "C" void attune_rn50_c2_1x1_b8_i8_wmma_16x16x16_s8s32_m57_launch(void* const* buffers, cudaStream_t stream) {
  dim3 grid(4, 392, 1);
  attune_rn50_c2_1x1_b8_i8_wmma_16x16x16_s8s32_m57_kernel<<<grid, 128, 0, stream>>>((const signed char*)buffers[0], (const signed char*)buffers[1], (int*)buffers[2]);
}
