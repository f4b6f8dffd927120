// AVX-512 tensorized kernels (f32 FMA and VNNI u8 x s8 -> s32) compile with the target's flags.
// Code generation only: this host has AVX2, so nothing here runs them.
#include <gtest/gtest.h>

#include "codegen/codegen_cpu_tensorize.hpp"
#include "schedule/tensorize.hpp"
#include "tool_util.hpp"

namespace attune {
namespace {

const Target& avx512() {
  static const Target t = load_target("x86-avx512");
  return t;
}

// Compiles every valid mapping of `spec` onto `intrinsic`. The kernels share one C file (each
// entry renamed) so that the compiler starts once.
void compile_all(const std::string& spec, const std::string& intrinsic, const std::string& must_contain) {
  const std::string cc = test::find_tool("cc");
  if (cc.empty()) GTEST_SKIP() << "no C compiler 'cc' on PATH";
  const Op op = op_from_cli(spec);
  const Intrinsic& intr = avx512().intrinsic(intrinsic);
  const MappingReport rep = enumerate_mappings(op, intr);
  std::string all;
  std::vector<std::string> flags;
  int n = 0;
  for (std::size_t i = 0; i < rep.items.size(); ++i) {
    if (!rep.items[i].valid) continue;
    const Artifact a = lower_cpu_tensorized(plan_tensorize(op, intr, static_cast<int>(i) + 1), avx512().compiler_flags);
    EXPECT_NE(a.source.find(must_contain), std::string::npos) << a.source;
    std::string src = a.source;
    const std::string entry = "void attune_kernel(";
    const auto at = src.find(entry);
    ASSERT_NE(at, std::string::npos);
    src.replace(at, entry.size(), "void attune_kernel_" + std::to_string(i + 1) + "(");
    all += src;
    flags = a.flags;
    ++n;
  }
  ASSERT_GT(n, 0) << rep.reason;
  const auto dir = test::fresh_dir("avx512");
  test::write_text(dir / "all.c", all);
  std::string cmd = cc;
  for (const auto& f : flags) cmd += " " + f;
  cmd += " -Werror=implicit-function-declaration -c " + (dir / "all.c").string() + " -o " + (dir / "all.o").string();
  int rc = 0;
  const std::string out = test::run_command(cmd, rc);
  EXPECT_EQ(rc, 0) << cmd << "\n" << out.substr(0, 6000);
  std::printf("%s on %s: %d kernels compiled\n", spec.c_str(), intrinsic.c_str(), n);
  std::filesystem::remove_all(dir);
}

TEST(Avx512Tensorize, FmaGemmCompiles) { compile_all("gemm:M=5,N=37,K=9", "avx512_fma_f32", "_mm512_fmadd_ps"); }

TEST(Avx512Tensorize, FmaConvCompiles) {
  compile_all("conv2d:N=1,H=6,W=6,C=4,K=20,R=3,S=3,stride=2,pad=1,layout=NHWC", "avx512_fma_f32", "_mm512_fmadd_ps");
}

TEST(Avx512Tensorize, VnniGemmCompiles) {
  compile_all("tensor A[5,10] u8; tensor B[10,40] i8; tensor C[5,40] i32; C[m,n] += A[m,k] * B[k,n]",
              "avx512_vnni_u8s8s32", "_mm512_dpbusd_epi32");
}

TEST(Avx512Tensorize, VnniConvCompiles) {
  compile_all(
      "tensor I[1,6,6,6] u8; tensor W[3,3,6,20] i8; tensor O[1,6,6,20] i32;"
      "O[n,p,q,k] += I[n,p+r-1,q+s-1,c] * W[r,s,c,k]",
      "avx512_vnni_u8s8s32", "_mm512_dpbusd_epi32");
}

}  // namespace
}  // namespace attune
