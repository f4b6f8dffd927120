// Tunes a small GEMM, loads the best kernel and checks one output against a sum done by hand.
#include <attune/attune.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) try {
  attune::Session session("cpu", argc > 1 ? argv[1] : "consumer.db");
  const char* gemm = "gemm:M=32,N=32,K=32";  // C[m, n] += A[m, k] * B[k, n]
  session.tune(gemm, {.trials = 4, .threads = 1});
  const attune::Kernel kernel = session.load(gemm);
  std::vector<float> A(32 * 32), B(32 * 32), C(32 * 32);
  for (int i = 0; i < 32 * 32; ++i) A[i] = i % 7, B[i] = i % 5;
  kernel({A.data(), B.data(), C.data()});  // one pointer per tensor, in kernel.tensors() order
  float want = 0;
  for (int k = 0; k < 32; ++k) want += A[1 * 32 + k] * B[k * 32 + 2];
  std::printf("C[1,2] = %g, by hand %g\n", C[1 * 32 + 2], want);
  return C[1 * 32 + 2] == want ? 0 : 1;
} catch (const attune::Error& e) {
  std::fprintf(stderr, "attune: %s\n", e.what());
  return 1;
}
