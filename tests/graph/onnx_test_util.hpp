// onnx_test_util.hpp — small ONNX models built in C++ for the import tests, written to temp files.
#pragma once

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace attune::test {

// y = Relu(x) over x[dims] (a dim < 0 is dynamic, named "batch"), opset `opset`.
inline onnx::ModelProto relu_model(std::vector<long> dims = {2, 3}, int opset = 17, const std::string& op = "Relu") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* in = g->add_input();
  in->set_name("x");
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (long d : dims) {
    auto* dim = tt->mutable_shape()->add_dim();
    if (d < 0) dim->set_dim_param("batch");
    else dim->set_dim_value(d);
  }
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name("the_node");
  n->add_input("x");
  n->add_output("y");
  g->add_output()->set_name("y");
  return m;
}

// gemm_relu_model's output for input x [M, K], in double: the oracle its tests compare with.
inline std::vector<double> gemm_relu_reference(int M, int K, int N, const std::vector<float>& x,
                                               const std::vector<float>& w, const std::vector<float>& b) {
  std::vector<double> y(static_cast<std::size_t>(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double acc = b[j];
      for (int k = 0; k < K; ++k) acc += double(x[i * K + k]) * w[k * N + j];
      y[i * N + j] = std::max(acc, 0.0);
    }
  return y;
}

// y = Relu(x W + b), x [M, K], W [K, N] and b [N] drawn from `rng` (and returned in w, b).
inline onnx::ModelProto gemm_relu_model(int M, int K, int N, std::vector<float>& w, std::vector<float>& b,
                                        std::mt19937& rng) {
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
  return m;
}

// This test process's directory for the files below, removed when the process exits.
inline const std::filesystem::path& test_temp_dir() {
  static const TempDir dir("attune-graph-test");
  return dir.path;
}

inline std::string write_temp(const std::string& name, const std::string& bytes) {
  const auto path = (test_temp_dir() / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

inline std::string write_model(const std::string& name, const onnx::ModelProto& m) {
  return write_temp(name, m.SerializeAsString());
}

}  // namespace attune::test
