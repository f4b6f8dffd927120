// attune::Model through the C++ API: a small network built here (Gemm + bias, then Relu) runs
// with default kernels and equals the same computation done by hand on random inputs; bad
// inputs are Errors.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "attune/attune.hpp"
#include "graph/onnx_test_util.hpp"

namespace attune {
namespace {

TEST(ModelApi, SmallNetworkEqualsHandComputation) {
  std::mt19937 rng(5);
  const int M = 5, K = 7, N = 9;
  std::vector<float> w, b;
  const std::string path = test::write_model("gemm_relu.onnx", test::gemm_relu_model(M, K, N, w, b, rng));
  const auto db = test::test_temp_dir() / "model.db";
  Session session("cpu", db.string());
  const Model model = session.load_model(path, {.threads = 1, .shapes = {}});
  ASSERT_EQ(model.inputs().size(), 1u);
  EXPECT_EQ(model.inputs()[0].shape, (std::vector<std::int64_t>{M, K}));
  EXPECT_EQ(model.tuned_tasks(), 0);
  std::vector<float> x(M * K);
  for (auto& v : x) v = std::normal_distribution<float>()(rng);
  const auto out = model.run({x});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].size(), static_cast<std::size_t>(M * N));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double acc = b[j];
      for (int k = 0; k < K; ++k) acc += double(x[i * K + k]) * w[k * N + j];
      EXPECT_NEAR(out[0][i * N + j], std::max(acc, 0.0), 1e-4) << i << "," << j;
    }
  EXPECT_THROW(model.run({}), Error);
  EXPECT_THROW(model.run({std::vector<float>(3)}), Error);
  EXPECT_THROW(session.load_model("/nonexistent.onnx"), Error);
  std::filesystem::remove(path);
  std::filesystem::remove(db);
}

}  // namespace
}  // namespace attune
