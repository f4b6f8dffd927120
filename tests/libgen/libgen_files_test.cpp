// Correctness of the generated tree without building it with CMake: which files, what the
// header declares, the kernel sources' headers and symbols, that the hand-written C compiles
// warning-free, and that regenerating replaces stale kernels.
#include <gtest/gtest.h>

#include "libgen/libgen.hpp"
#include "libgen_test_util.hpp"

namespace attune {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;
using testing::slurp;

LibgenResult generate(const ScratchDir& d, const std::string& name = "mylib") {
  LibgenOptions o;
  o.db_path = d.file("t.db");
  o.out_dir = d.file("out");
  o.name = name;
  return generate_library(o);
}

TEST(LibgenFiles, WritesTheTree) {
  ScratchDir d;
  testing::add_verified_task(d.file("t.db"), "g", instantiate_template("gemm", {{"M", "8"}, {"N", "16"}, {"K", "4"}}),
                             2e-6);
  testing::add_verified_task(d.file("t.db"), "odd op",
                             parse_spec("tensor A[4,4] f32; tensor C[4] f32; C[m] += A[m,k]"));
  const LibgenResult r = generate(d);
  ASSERT_EQ(r.tuned_kernels, 2);
  ASSERT_EQ(r.kernels.size(), 2u);
  const auto& g = r.kernels[0];
  EXPECT_EQ(g.family, "gemm");
  EXPECT_EQ(g.entry, "mylib_gemm");
  EXPECT_EQ(g.symbol.rfind("mylib_gemm_k", 0), 0u) << g.symbol;
  EXPECT_DOUBLE_EQ(g.gflops, 2.0 * 8 * 16 * 4 / 2e-6 / 1e9);
  const auto& raw = r.kernels[1];
  EXPECT_EQ(raw.family, "");
  EXPECT_EQ(raw.entry, "mylib_odd_op");

  const std::vector<std::string> want = {
      "CMakeLists.txt", "README.md", "cmake/mylibConfig.cmake", "include/mylib.h",     "mylib.pc",
      g.file,           raw.file,    "src/mylib_dispatch.c",    "src/mylib_generic.c", "src/mylib_generic_stages.c",
      "src/mylib_internal.h"};
  std::vector<std::string> sorted = want;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(r.files, sorted);

  const fs::path out = d.file("out");
  const std::string h = slurp(out / "include/mylib.h");
  for (const char* decl : {"int mylib_gemm(const mylib_gemm_params* p, const float* A, const float* B, "
                           "const float* bias, float* C);",
                           "int mylib_conv2d_is_tuned(const mylib_conv2d_params* p);",
                           "const char* mylib_conv2d_kernel_name(const mylib_conv2d_params* p);",
                           "long long mylib_conv2d_transpose_output_size(", "MYLIB_LAYOUT_NHWIJC",
                           "void mylib_odd_op(void* const* buffers);", "/* ---- gemm (1 tuned shape) ----",
                           "int mylib_layernorm(const mylib_layernorm_params* p, const float* X, const float* Gamma, "
                           "const float* Beta, float* Y);",
                           "  double eps; /* added to the variance", "  int form; /* 0: exact gelu",
                           "/* ---- attention (0 tuned shapes) ----"})
    EXPECT_NE(h.find(decl), std::string::npos) << decl;

  const std::string k = slurp(out / g.file);
  EXPECT_EQ(k.find("attune_kernel("), std::string::npos);
  EXPECT_NE(k.find("void " + g.symbol + "(void* const* buffers)"), std::string::npos);
  for (const char* line :
       {" * task:      g\n", " * family:    gemm (M=8 N=16 K=4), reached through mylib_gemm()\n",
        " * measured:  0.0020 ms median of 2 repeats, 0.51 GFLOP/s", " * compiler:  cc (test) 12.2.0\n"})
    EXPECT_NE(k.find(line), std::string::npos) << line << "\n" << k.substr(0, 1200);

  // The hand-written and dispatch C compiles cleanly; the kernels compile.
  const std::string inc =
      " -I" + testing::shell_quote((out / "include").string()) + " -I" + testing::shell_quote((out / "src").string());
  const std::string log = d.file("cc.log");
  EXPECT_EQ(testing::shell("cc -std=gnu11 -fopenmp -fsyntax-only -Wall -Wextra -Werror" + inc + " " +
                               testing::shell_quote((out / "src/mylib_dispatch.c").string()) + " " +
                               testing::shell_quote((out / "src/mylib_generic.c").string()) + " " +
                               testing::shell_quote((out / "src/mylib_generic_stages.c").string()),
                           log),
            0)
      << slurp(log);
  EXPECT_EQ(testing::shell("cc -std=gnu11 -fopenmp -fsyntax-only -mavx2 -mfma" + inc + " " +
                               testing::shell_quote((out / g.file).string()) + " " +
                               testing::shell_quote((out / raw.file).string()),
                           log),
            0)
      << slurp(log);
  // The header is C++-clean too.
  EXPECT_EQ(testing::shell("echo '#include <mylib.h>' | c++ -x c++ -fsyntax-only -Wall -Werror" + inc + " -", log), 0)
      << slurp(log);

  const std::string cm = slurp(out / "CMakeLists.txt");
  EXPECT_EQ(cm.find("-march=native"), std::string::npos);
  // The host's target's flags without -march=native (AVX-512 where the CPU has it), and
  // without gcc's predictive commoning, which can invent stores in parallel loops.
  const std::string flags = std::string(host_cpu_target() == "x86-avx512"
                                            ? "-O3 -mavx512f -mavx512vl -mavx512bw -mavx512dq -mavx512vnni -mfma"
                                            : "-O3 -mavx2 -mfma") +
                            " -fno-predictive-commoning";
  EXPECT_NE(cm.find("set(MYLIB_C_FLAGS " + flags + ")"), std::string::npos) << cm;
  EXPECT_NE(cm.find("  " + g.file + "\n"), std::string::npos);
}

TEST(LibgenFiles, MultiStageTasksGetTheirFamilyUnlessItCannotReachThem) {
  ScratchDir d;
  testing::add_verified_task(d.file("t.db"), "ln", instantiate_template("layernorm", {{"M", "2"}, {"N", "8"}}));
  // eps = 0 in the struct means the default (1e-5): a task tuned with eps = 0 stays raw.
  testing::add_verified_task(d.file("t.db"), "ln0",
                             instantiate_template("layernorm", {{"M", "2"}, {"N", "8"}, {"eps", "0"}}));
  const LibgenResult r = generate(d);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].family, "layernorm");
  EXPECT_EQ(r.kernels[0].entry, "mylib_layernorm");
  EXPECT_EQ(r.kernels[1].family, "");
  EXPECT_EQ(r.kernels[1].entry, "mylib_ln0");
  const std::string dispatch = slurp(d.file("out/src/mylib_dispatch.c"));
  EXPECT_NE(dispatch.find("{{.M = 2, .N = 8, .eps = 1e-05},"), std::string::npos) << dispatch;
}

TEST(LibgenFiles, RegeneratingWithForceReplacesStaleKernelsOnly) {
  ScratchDir d;
  testing::add_verified_task(d.file("t.db"), "g", instantiate_template("gemm", {{"M", "4"}, {"N", "4"}, {"K", "4"}}));
  testing::add_verified_task(d.file("t.db"), "h", instantiate_template("gemm", {{"M", "8"}, {"N", "4"}, {"K", "4"}}));
  const auto first = generate(d);
  ASSERT_EQ(first.kernels.size(), 2u);
  // The user's own file beside the output survives; a kernel of the earlier output that the
  // new one lacks (here: task h, no longer in the ops file) is removed.
  testing::spit(d.file("out/src/kernels/mine.c"), "mine");
  testing::spit(d.file("ops.txt"), "g gemm M=4 N=4 K=4\n");
  LibgenOptions o;
  o.db_path = d.file("t.db");
  o.out_dir = d.file("out");
  o.name = "mylib";
  o.ops_file = d.file("ops.txt");
  o.force = true;
  const auto second = generate_library(o);
  ASSERT_EQ(second.kernels.size(), 1u);
  EXPECT_TRUE(fs::exists(d.file("out/" + first.kernels[0].file)));
  EXPECT_FALSE(fs::exists(d.file("out/" + first.kernels[1].file)));
  EXPECT_EQ(slurp(d.file("out/src/kernels/mine.c")), "mine");
}

}  // namespace
}  // namespace attune
