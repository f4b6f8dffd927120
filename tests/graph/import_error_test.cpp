// Importing a model with an unsupported op, a dynamic shape, a wrong file, a truncated file,
// external data or an unsupported opset gives one Error line naming the problem, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include "graph/import.hpp"
#include "graph/op_rules.hpp"
#include "ir/error.hpp"
#include "onnx_test_util.hpp"

namespace attune::graph {
namespace {

std::string import_error(const std::string& path, const ShapeOverrides& s = {}) {
  try {
    import_onnx(path, s);
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    return m;
  }
  return "";
}

TEST(ImportErrors, UnsupportedOperatorNamesTheNodeAndTheOp) {
  const auto m = import_error(test::write_model("foo.onnx", test::relu_model({2, 3}, 17, "FancyOp")));
  EXPECT_NE(m.find("node 'the_node' (FancyOp)"), std::string::npos) << m;
  EXPECT_NE(m.find("is not supported"), std::string::npos) << m;
  EXPECT_NE(m.find("Conv"), std::string::npos) << m;  // and says what is
}

TEST(ImportErrors, DynamicDimensionAsksForShape) {
  const auto path = test::write_model("dyn.onnx", test::relu_model({-1, 3}));
  const auto m = import_error(path);
  EXPECT_NE(m.find("graph input 'x' has a dynamic dimension 'batch'"), std::string::npos) << m;
  EXPECT_NE(m.find("--shape x="), std::string::npos) << m;
  // Fixed on the command line, it imports; a wrong override name is refused.
  EXPECT_NO_THROW(import_onnx(path, {{"x", {4, 3}}}));
  EXPECT_NE(import_error(path, {{"nope", {4, 3}}}).find("'nope', which is not a graph input"), std::string::npos);
}

TEST(ImportErrors, WrongFileIsNotAModel) {
  const auto m = import_error(test::write_temp("text.onnx", "tensor A[4] f32\nthis is not protobuf\n"));
  EXPECT_NE(m.find("not an ONNX model"), std::string::npos) << m;
  EXPECT_NE(import_error(test::write_temp("empty.onnx", "")).find("the file is empty"), std::string::npos);
  EXPECT_NE(import_error("/nonexistent/model.onnx").find("cannot open"), std::string::npos);
}

TEST(ImportErrors, EveryTruncationIsAnErrorNotACrash) {
  auto model = test::relu_model({2, 3});
  auto* w = model.mutable_graph()->add_initializer();  // some bulk, so truncations hit data
  w->set_name("unused");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(64);
  for (int k = 0; k < 64; ++k) w->add_float_data(static_cast<float>(k));
  const std::string bytes = model.SerializeAsString();
  int errors = 0;
  for (std::size_t len = 1; len < bytes.size(); len += 7) {
    const auto path = test::write_temp("cut.onnx", bytes.substr(0, len));
    try {
      import_onnx(path);
    } catch (const Error& e) {
      ++errors;
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(ImportErrors, ExternalDataAndOldOpsetsAreRefused) {
  auto model = test::relu_model({2, 3});
  auto* w = model.mutable_graph()->add_initializer();
  w->set_name("ext");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(2);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  EXPECT_NE(import_error(test::write_model("ext.onnx", model)).find("external file"), std::string::npos);
  EXPECT_NE(import_error(test::write_model("old.onnx", test::relu_model({2, 3}, 7))).find("opset 7 is not supported"),
            std::string::npos);
}

TEST(ImportErrors, UndefinedInputAndShapeMismatchNameTheNode) {
  auto model = test::relu_model({2, 3}, 17, "Add");
  model.mutable_graph()->mutable_node(0)->add_input("ghost");
  EXPECT_NE(import_error(test::write_model("ghost.onnx", model)).find("input 'ghost' is not defined"), std::string::npos);
  auto mm = test::relu_model({2, 3}, 17, "MatMul");
  mm.mutable_graph()->mutable_node(0)->add_input("x");
  EXPECT_NE(import_error(test::write_model("mm.onnx", mm)).find("node 'the_node' (MatMul): inner dimensions differ"),
            std::string::npos);
}

TEST(ImportErrors, WrongInputCountNamesTheNode) {
  // Every supported operator with no inputs at all (only Constant takes none): an error, not a crash.
  const std::string ops = supported_op_types();
  for (std::size_t at = 0; at < ops.size();) {
    const std::size_t end = std::min(ops.find(", ", at), ops.size());
    const std::string op = ops.substr(at, end - at);
    at = end + 2;
    auto m = test::relu_model({2, 3}, 17, op);
    m.mutable_graph()->mutable_node(0)->clear_input();
    const std::string msg = import_error(test::write_model("arity.onnx", m));
    if (op == "Constant") continue;  // no value attribute: refused for that instead
    EXPECT_NE(msg.find("node 'the_node' (" + op + "): has 0 inputs"), std::string::npos) << op << ": " << msg;
  }
}

TEST(ImportErrors, ShapeOverrideSyntax) {
  EXPECT_EQ(parse_shape_override("input=1,3,224,224").second, (Shape{1, 3, 224, 224}));
  for (const char* bad : {"input", "=1,2", "x=1,,2", "x=0,3", "x=a", "x="}) EXPECT_THROW(parse_shape_override(bad), Error) << bad;
}

}  // namespace
}  // namespace attune::graph
