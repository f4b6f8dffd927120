// baselines_blas.cpp — OpenBLAS and BLIS adapters (see baselines_blas.hpp).
//
// OpenBLAS is called through cblas_sgemm, declared here by hand rather than through a cblas.h:
// the <cblas.h> on the include path is whichever one Debian's alternatives picked, and blis.h
// declares its own cblas_sgemm. BLIS is called through its typed API (bli_sgemm), never its
// cblas layer, so that each column really measures the library it names; main() checks where
// the symbols resolved to.
#include "baselines_blas.hpp"

#include <dlfcn.h>

#include <cstring>
#include <stdexcept>

// Keep blis.h's BLAS and CBLAS compatibility prototypes out: they would clash with OpenBLAS's.
#define BLIS_DISABLE_BLAS
#define BLIS_DISABLE_CBLAS
#include <blis.h>

extern "C" {
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
                 int ldb, float beta, float* c, int ldc);
void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float* a, int lda, const float* x, int incx,
                 float beta, float* y, int incy);
void openblas_set_num_threads(int);
}

namespace bench {

namespace {

constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

// C[b] = A[b] (M x K) * B[b] (K x N), row-major, for b < batch. M = 1 goes to gemv: that is
// what a user of either library calls for a vector-matrix product, and sgemm would pack B.
std::vector<Baseline> matmul(const attune::Op& op, const std::vector<attune::Buffer>& bufs, long batch, long M, long N,
                             long K) {
  const float* A = bufs[0].as<float>();
  const float* B = bufs[1].as<float>();
  std::vector<Baseline> out;

  Baseline ob{"OpenBLAS", output_like(op, bufs), {}, {}};
  float* C1 = ob.out->as<float>();
  ob.run = [=] {
    for (long b = 0; b < batch; ++b) {
      const float* a = A + b * M * K;
      const float* bb = B + b * K * N;
      float* c = C1 + b * M * N;
      if (M == 1)  // y[n] = sum_k x[k] B[k, n] = (B^T x)[n]
        cblas_sgemv(kRowMajor, kTrans, int(K), int(N), 1.0f, bb, int(N), a, 1, 0.0f, c, 1);
      else
        cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, int(M), int(N), int(K), 1.0f, a, int(K), bb, int(N), 0.0f, c,
                    int(N));
    }
  };
  out.push_back(std::move(ob));

  Baseline bl{"BLIS", output_like(op, bufs), {}, {}};
  float* C2 = bl.out->as<float>();
  bl.run = [=] {
    float one = 1.0f, zero = 0.0f;
    for (long b = 0; b < batch; ++b) {
      auto* a = const_cast<float*>(A + b * M * K);
      auto* bb = const_cast<float*>(B + b * K * N);
      float* c = C2 + b * M * N;
      if (M == 1)  // B is K x N with row stride N; y = B^T x
        bli_sgemv(BLIS_TRANSPOSE, BLIS_NO_CONJUGATE, K, N, &one, bb, N, 1, a, 1, &zero, c, 1);
      else
        bli_sgemm(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, M, N, K, &one, a, K, 1, bb, N, 1, &zero, c, N, 1);
    }
  };
  out.push_back(std::move(bl));
  return out;
}

// Capsule convolution (templates.cpp):
//   O[n, p, q, ci, cj, k] += I[n, p*st + r - pad, q*st + s - pad, ci, ck, c] * W[r, s, ck, cj, c, k]
// is one GEMM with rows (n, p, q, ci), columns (cj, k) and reduction (r, s, ck, c):
//   - rows of the im2col matrix copy, per (r, s), the contiguous cap*C block I[n, h, w, ci, :, :]
//     (zeros outside the image) — this is done per call, inside the timed region;
//   - W interleaves cj between ck and c, so it is re-laid out once as Wp[(r, s, ck, c)][(cj, k)]
//     (constant weights: a library user would do this once);
//   - the output rows (cj, k) are contiguous in O, so the GEMM writes O in place.
std::vector<Baseline> capsule(const Workload& w, const std::vector<attune::Buffer>& bufs) {
  const attune::Op& op = w.op;
  const auto& is = bufs[0].shape();  // N H W cap cap C
  const auto& os = bufs[2].shape();  // N Ho Wo cap cap K
  const long N = is[0], H = is[1], Wd = is[2], cap = is[3], C = is[5];
  const long Ho = os[1], Wo = os[2], K = os[5];
  const long R = w.num("R"), S = w.num("S"), st = w.num("stride", 1), pad = w.num("pad", 0);
  const long rows = N * Ho * Wo * cap, cols = cap * K, red = R * S * cap * C;

  struct State {
    std::vector<float> wp, col;
  };
  auto state = std::make_shared<State>();
  state->wp.resize(std::size_t(red * cols));
  state->col.resize(std::size_t(rows * red));
  const float* Wt = bufs[1].as<float>();
  for (long r = 0; r < R; ++r)
    for (long s = 0; s < S; ++s)
      for (long ck = 0; ck < cap; ++ck)
        for (long cj = 0; cj < cap; ++cj)
          for (long c = 0; c < C; ++c)
            for (long k = 0; k < K; ++k)
              state->wp[std::size_t((((r * S + s) * cap + ck) * C + c) * cols + cj * K + k)] =
                  Wt[((((r * S + s) * cap + ck) * cap + cj) * C + c) * K + k];

  Baseline b{"im2col+OpenBLAS", output_like(op, bufs), {}, state};
  const float* I = bufs[0].as<float>();
  float* O = b.out->as<float>();
  State* st8 = state.get();
  b.run = [=] {
    float* col = st8->col.data();
    const long chunk = cap * C;
#pragma omp parallel for schedule(static)
    for (long npq = 0; npq < N * Ho * Wo; ++npq) {
      const long n = npq / (Ho * Wo), p = npq / Wo % Ho, q = npq % Wo;
      for (long ci = 0; ci < cap; ++ci) {
        float* row = col + (npq * cap + ci) * red;
        for (long r = 0; r < R; ++r)
          for (long s = 0; s < S; ++s) {
            const long h = p * st + r - pad, x = q * st + s - pad;
            float* dst = row + (r * S + s) * chunk;
            if (h < 0 || h >= H || x < 0 || x >= Wd)
              std::memset(dst, 0, sizeof(float) * std::size_t(chunk));
            else
              std::memcpy(dst, I + (((n * H + h) * Wd + x) * cap + ci) * chunk, sizeof(float) * std::size_t(chunk));
          }
      }
    }
    cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, int(rows), int(cols), int(red), 1.0f, col, int(red), st8->wp.data(),
                int(cols), 0.0f, O, int(cols));
  };
  return {std::move(b)};
}

}  // namespace

void blas_set_threads(int threads) {
  openblas_set_num_threads(threads);
  bli_thread_set_num_threads(threads);
}

std::string symbol_origin(const char* symbol) {
  void* p = dlsym(RTLD_DEFAULT, symbol);
  Dl_info info{};
  if (!p || !dladdr(p, &info) || !info.dli_fname) return "(unresolved)";
  return info.dli_fname;
}

std::vector<Baseline> blas_baselines(const Workload& w, const std::vector<attune::Buffer>& bufs) {
  const attune::Op& op = w.op;
  if (!op.epilogue.empty()) return {};
  for (const auto& b : bufs)
    if (b.dtype() != attune::DType::f32) return {};
  if (w.family == "gemm") return matmul(op, bufs, 1, w.num("M"), w.num("N"), w.num("K"));
  if (w.family == "batch_matmul") return matmul(op, bufs, w.num("B"), w.num("M"), w.num("N"), w.num("K"));
  if (w.family == "conv2d_capsule") return capsule(w, bufs);
  return {};
}

}  // namespace bench
