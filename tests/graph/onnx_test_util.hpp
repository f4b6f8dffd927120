// onnx_test_util.hpp — small ONNX models built in C++ for the import tests, written to temp files.
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
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
