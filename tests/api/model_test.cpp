// attune::Model through the C++ API: a small network built here (Gemm + bias, then Relu) runs
// with default kernels and equals the same computation done by hand on random inputs; bad
// inputs are Errors.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "attune/attune.hpp"
#include "temp_dir.hpp"

namespace attune {
namespace {

// The model file and database of this test process, removed when it exits.
const std::filesystem::path& scratch() {
  static const test::TempDir dir("attune-model-test");
  return dir.path;
}

// y = Relu(x W + b), x [M, K], W [K, N], b [N]
std::string write_gemm_relu(int M, int K, int N, std::vector<float>& w, std::vector<float>& b, std::mt19937& rng) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  auto* in = g->add_input();
  in->set_name("x");
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(M);
  tt->mutable_shape()->add_dim()->set_dim_value(K);
  auto init = [&](const char* name, std::vector<long> dims, std::vector<float>& data) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    long n = 1;
    for (long d : dims) t->add_dims(d), n *= d;
    data.resize(n);
    for (auto& v : data) v = std::normal_distribution<float>()(rng), t->add_float_data(v);
  };
  init("W", {K, N}, w);
  init("b", {N}, b);
  auto* gemm = g->add_node();
  gemm->set_op_type("Gemm");
  for (const char* i : {"x", "W", "b"}) gemm->add_input(i);
  gemm->add_output("h");
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->add_input("h");
  relu->add_output("y");
  g->add_output()->set_name("y");
  const auto path = scratch() / "gemm_relu.onnx";
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  return path.string();
}

TEST(ModelApi, SmallNetworkEqualsHandComputation) {
  std::mt19937 rng(5);
  const int M = 5, K = 7, N = 9;
  std::vector<float> w, b;
  const std::string path = write_gemm_relu(M, K, N, w, b, rng);
  const auto db = scratch() / "model.db";
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
