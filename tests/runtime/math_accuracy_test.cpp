// The math prelude of multi-stage kernels (codegen/cpu/c_math.hpp), compiled as kernels are and
// called over dense sweeps in omp simd loops, against double-precision libm: the accuracy bounds
// its comment states hold.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cmath>
#include <vector>

#include "codegen/cpu/c_math.hpp"
#include "kernels.hpp"

namespace attune::test {
namespace {

using Sweep = void (*)(const float*, float*, long);

// One entry point per function: y[i] = f(x[i]) in an omp simd loop, as kernels call them.
std::string sweep_source() {
  std::string s = cgen::math_prelude();
  for (const char* f : {"exp", "erf", "tanh"})
    s += std::string("void sweep_") + f + "(const float* x, float* y, long n) {\n#pragma omp simd\n" +
         "  for (long i = 0; i < n; ++i) y[i] = attune_" + f + "(x[i]);\n}\n";
  return s;
}

class MathPrelude : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir;
    Builder b(build_options(*dir_));
    Artifact a;
    a.source = sweep_source();
    a.entry = "sweep_exp";
    a.flags = {"-O3", "-march=native", "-fopenmp", "-fno-math-errno"};
    const BuildResult r = b.build(a);
    ASSERT_TRUE(r.ok) << r.error;
    lib_ = dlopen(r.so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib_, nullptr) << dlerror();
  }
  static void TearDownTestSuite() { delete dir_; }

  // The largest error of f over [lo, hi] sampled at n points, relative to max(|want|, floor).
  static double worst(const char* f, double (*want)(double), double lo, double hi, double floor) {
    auto sweep = reinterpret_cast<Sweep>(dlsym(lib_, (std::string("sweep_") + f).c_str()));
    EXPECT_NE(sweep, nullptr);
    const long n = 200001;
    std::vector<float> x(n), y(n);
    for (long i = 0; i < n; ++i) x[i] = static_cast<float>(lo + (hi - lo) * static_cast<double>(i) / (n - 1));
    sweep(x.data(), y.data(), n);
    double w = 0;
    for (long i = 0; i < n; ++i) {
      const double t = want(static_cast<double>(x[i]));
      w = std::max(w, std::fabs(y[i] - t) / std::max(std::fabs(t), floor));
    }
    return w;
  }

  static ScratchDir* dir_;
  static void* lib_;
};
ScratchDir* MathPrelude::dir_ = nullptr;
void* MathPrelude::lib_ = nullptr;

double exp_d(double x) { return std::exp(x); }
double erf_d(double x) { return std::erf(x); }
double tanh_d(double x) { return std::tanh(x); }

TEST_F(MathPrelude, ExpRelativeErrorBelowFiveTenMillionths) {
  EXPECT_LT(worst("exp", exp_d, -87, 88, 0), 5e-7);
  EXPECT_LT(worst("exp", exp_d, -1, 1, 0), 5e-7);
}

TEST_F(MathPrelude, ExpSaturatesInsteadOfOverflowing) {
  auto sweep = reinterpret_cast<Sweep>(dlsym(lib_, "sweep_exp"));
  const float x[4] = {-1e30f, -200.0f, 200.0f, -INFINITY};
  float y[4];
  sweep(x, y, 4);
  EXPECT_LT(y[0], 2e-38f);
  EXPECT_GE(y[0], 0.0f);
  EXPECT_TRUE(std::isfinite(y[2]));
  EXPECT_LT(y[3], 2e-38f);
}

TEST_F(MathPrelude, ErfAndTanhAbsoluteErrorBelowFiveTenMillionths) {
  EXPECT_LT(worst("erf", erf_d, -8, 8, 1), 5e-7);
  EXPECT_LT(worst("tanh", tanh_d, -20, 20, 1), 5e-7);
}

}  // namespace
}  // namespace attune::test
