// A one-task network for the network tests: Gemm + Relu with random weights written as an ONNX
// model, imported, one random input, and the double-precision oracle its outputs are held to.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "graph/import.hpp"
#include "graph/onnx_test_util.hpp"

namespace attune::test {

struct GemmReluNet {
  int M, K, N;
  std::vector<float> w, b, x;
  std::string model, db;  // db: a path in the test's directory, not created here
  graph::ModelPlan plan;

  GemmReluNet(const std::string& name, int m, int k, int n, unsigned seed) : M(m), K(k), N(n) {
    std::mt19937 rng(seed);
    model = write_model(name + ".onnx", gemm_relu_model(M, K, N, w, b, rng));
    db = (test_temp_dir() / (name + ".db")).string();
    plan = graph::import_onnx(model);
    x.resize(static_cast<std::size_t>(M) * K);
    for (auto& v : x) v = std::normal_distribution<float>()(rng);
  }
  std::vector<graph::HostTensor> inputs() const { return {graph::HostTensor::floats({M, K}, x)}; }
  void expect_right(const std::vector<graph::HostTensor>& out) const {
    ASSERT_EQ(out.size(), 1u);
    const std::vector<double> want = gemm_relu_reference(M, K, N, x, w, b);
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(out[0].f[i], want[i], 1e-4) << i;
  }
};

}  // namespace attune::test
