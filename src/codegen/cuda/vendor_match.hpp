// Recognising ops a vendor library computes (cuBLAS GEMM, cuDNN conv2d), so the GPU bundle can
// time the library on the same shapes. Exact structural matches only; anything else is None.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/op.hpp"

namespace attune::cuda {

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;  // C[m,n] += A[m,k] * B[k,n], all row-major
};
std::optional<GemmShape> match_gemm(const Op& op);

struct Conv2dShape {
  bool nhwc = false;  // NCHW: O[n,k,p,q] I[n,c,h,w] W[k,c,r,s]; NHWC: O[n,p,q,k] I[n,h,w,c] W[r,s,c,k]
  std::int64_t n = 0, c = 0, h = 0, w = 0, k = 0, r = 0, s = 0;
  std::int64_t pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
};
std::optional<Conv2dShape> match_conv2d(const Op& op);

}  // namespace attune::cuda
