// c_safe_test.cpp — outside text cannot inject code into what attune generates
// (codegen/c_safe.hpp): hostile labels, tensor names and traces, through every emitter. The
// generated source is read the way a C compiler reads it (trigraphs, then line splices, then
// comments and literals), and no attacker token may be left outside a comment.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "c_source_reader.hpp"
#include "codegen/c_safe.hpp"
#include "codegen/codegen.hpp"
#include "codegen/codegen_cpu.hpp"
#include "codegen/codegen_cpu_tensorize.hpp"
#include "codegen/codegen_cuda.hpp"
#include "codegen/gpu_bundle.hpp"
#include "ir/error.hpp"
#include "schedule/tensorize.hpp"
#include "schedule/transform.hpp"
#include "tool_util.hpp"

namespace attune {
namespace {

const std::vector<std::string>& hostile_labels() {
  static const std::vector<std::string> labels = {
      "*/ int x; evil(); /*",
      "a\nevil();\n/*",
      "x \\\nevil();",        // a line splice
      "x ?\?/\nevil();",      // the same with a trigraph
      "*?\?/\n/ evil(); /*",  // a star, then a spliced slash
      std::string("nul\0*/ evil(); /*", 17),
      "\xce\xbb */ evil(); // \x7f",
      "\"); evil(); (\"",
  };
  return labels;
}

void expect_no_injection(const std::string& src, const std::string& label) {
  const std::string code = testing::code_outside_comments(src);
  EXPECT_EQ(code.find("evil"), std::string::npos) << "label " << ::testing::PrintToString(label) << "\n" << src;
  EXPECT_EQ(code.find("int x;"), std::string::npos) << src;
}

Op gemm() { return op_from_cli("gemm:M=8,N=8,K=8"); }

TEST(CSafe, CommentTextCannotEndOrEscapeTheComment) {
  for (const auto& label : hostile_labels()) {
    const std::string s = comment_safe(label);
    for (const char* bad : {"*/", "/*", "??", "\\", "\n", "\r"}) EXPECT_EQ(s.find(bad), std::string::npos) << s;
    for (unsigned char c : s) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << s;
  }
  EXPECT_EQ(comment_safe("a */ b /* c ?\?/ d\\e\tf\x01"), "a * / b / * c ? ?/ d<5c>e f<01>");
  EXPECT_EQ(c_comment_lines("one\n\n*/two"), " * one\n *\n * * /two\n");
  EXPECT_EQ(c_comment_lines("x\\", "// "), "// x<5c>\n");
}

TEST(CSafe, HostileLabelsAndTracesStayInsideComments) {
  for (const auto& label : hostile_labels()) {
    Op op = gemm();
    op.name = label;  // as from a database row, which the spec parser never saw
    CpuCodegenOptions o;
    o.trace_json = label;
    expect_no_injection(lower_cpu(initial_nest(op), o).source, label);
  }
}

TEST(CSafe, RecordedTraceIsReserialisedNotPasted) {
  const Target cpu = load_target("x86-avx2");
  const std::string trace =
      R"({"schema_version": 1, "x": "*/ evil(); /*", "steps": [{"kind": "parallel", "loop": "m", "y": "*/ evil(); /*"}]})";
  const std::string src = lower(schedule_from_string(trace), gemm(), cpu).artifact.source;
  EXPECT_EQ(src.find("evil"), std::string::npos) << src;
  EXPECT_NE(src.find(R"( * trace: {"schema_version":1,"steps":[{"kind":"parallel","loop":"m"}]})"), std::string::npos)
      << src;
  // A tensorize step keeps its own keys only.
  const Intrinsic& intr = cpu.intrinsics.at(0);
  nlohmann::json step = to_json(plan_tensorize(gemm(), intr).step());
  step["evil"] = "*/ evil(); /*";
  const nlohmann::json hostile = {{"schema_version", 1}, {"steps", {step}}};
  const std::string tensorized = lower(schedule_from_string(hostile.dump()), gemm(), cpu).artifact.source;
  EXPECT_EQ(tensorized.find("evil"), std::string::npos) << tensorized;
}

TEST(CSafe, TensorizedAndCudaEmittersToo) {
  const Target cpu = load_target("x86-avx2");
  const Target gpu = load_target("nvidia-h200");
  for (const auto& label : hostile_labels()) {
    Op op = gemm();
    op.name = label;
    expect_no_injection(lower_cpu_tensorized(plan_tensorize(op, cpu.intrinsics.at(0)), {}).source, label);
    Op half = op_from_cli("gemm:M=32,N=32,K=32,dtype=f16");
    half.name = label;
    const TensorizePlan plan = plan_tensorize(half, gpu.intrinsics.at(0));
    expect_no_injection(lower_cuda(plan, CudaCodegenOptions{}).source, label);
    const std::string harness = cuda_harness(plan, "k0", "k0.cu");
    expect_no_injection(harness, label);
    EXPECT_NE(harness.find(c_string_literal(label)), std::string::npos);
  }
}

// Multi-stage ops on CUDA: the kernels (the label only in the spec's comment) and the bundle's
// harness (a label the parser would refuse is not printed at all).
TEST(CSafe, CudaStageKernelsAndTheirHarnessesToo) {
  for (const auto& label : hostile_labels()) {
    Op op = op_from_cli("layernorm:M=4,N=8");
    op.name = label;
    expect_no_injection(lower_cuda_stages(op).source, label);
    expect_no_injection(cuda_stage_harness(op, "k0", "k0.cu", "k0.data"), label);
  }
  const Op op = op_from_cli("layernorm:M=4,N=8");
  EXPECT_THROW(cuda_stage_harness(op, "k0", "k0.cu", "../x\".data"), Error);
}

// Renames tensor `from` of `op` to `to` everywhere, as a hand-built Op could.
Op renamed(Op op, const std::string& from, const std::string& to) {
  for (auto& t : op.tensors)
    if (t.name == from) t.name = to;
  for (auto* a : {&op.output, &op.inputs[0], &op.inputs[1]})
    if (a->tensor == from) a->tensor = to;
  return op;
}

TEST(CSafe, ReservedTensorNamesAreRefusedByEveryEmitter) {
  for (const char* name : {"int", "for", "restrict", "buffers", "i_m", "vld", "to_d"}) {
    SCOPED_TRACE(name);
    const Op op = renamed(gemm(), "A", name);
    EXPECT_THROW(lower_cpu(initial_nest(op), CpuCodegenOptions{}), Error);
    EXPECT_THROW(lower_cpu_tensorized(plan_tensorize(op, load_target("x86-avx2").intrinsics.at(0)), {}), Error);
  }
  try {
    lower_cpu(initial_nest(renamed(gemm(), "B", "int")), CpuCodegenOptions{});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "tensor name 'int' is a C or C++ keyword; it cannot appear in generated code");
  }
}

TEST(CSafe, DoubleLiteralsReadBackExactlyAndAreDoubles) {
  EXPECT_EQ(c_double_literal(6), "6.0");  // not the int 6
  EXPECT_EQ(c_double_literal(1e-5), "1e-05");
  EXPECT_EQ(c_double_literal(-0.5), "-0.5");
  for (double v : {0.1, 1.0 / 3.0, -1234.5678125, 6.02214076e23, 5e-324, 1.7976931348623157e308})
    EXPECT_EQ(std::strtod(c_double_literal(v).c_str(), nullptr), v) << c_double_literal(v);
  for (double v : {std::nan(""), HUGE_VAL, -HUGE_VAL}) EXPECT_THROW(c_double_literal(v), InternalError);
}

TEST(CSafe, StringLiteralsHoldExactlyTheText) {
  const std::string cc = test::find_tool("cc");
  if (cc.empty()) GTEST_SKIP() << "no cc";
  const auto dir = test::fresh_dir("c_string_literal");
  std::string all;
  for (const auto& s : hostile_labels()) all += s + "|";
  all += std::string("\x01\xff?\?=?\?(7\"\\0", 12);
  test::write_text(dir / "p.c", "#include <stdio.h>\nint main(void) { static const char s[] = " +
                                    c_string_literal(all) + "; fwrite(s, 1, sizeof s - 1, stdout); return 0; }\n");
  int rc = 0;
  const std::string log = test::run_command(
      cc + " -std=c11 -trigraphs -Wall -Werror -o " + (dir / "p").string() + " " + (dir / "p.c").string(), rc);
  ASSERT_EQ(rc, 0) << log;
  const std::string got = test::run_command((dir / "p").string(), rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(got, all);
  std::filesystem::remove_all(dir);
}

TEST(CSafe, AHostileLabelCompilesToTheSameObjectAsABenignOne) {
  const std::string cc = test::find_tool("cc");
  if (cc.empty()) GTEST_SKIP() << "no cc";
  const auto dir = test::fresh_dir("c_safe_object");
  auto object_of = [&](const std::string& label, const std::string& sub) {
    Op op = gemm();
    op.name = label;
    CpuCodegenOptions o;
    o.trace_json = label;
    const Artifact a = lower_cpu(initial_nest(op), o);
    std::filesystem::create_directories(dir / sub);
    test::write_text(dir / sub / "k.c", a.source);  // the same file name: it is in the object
    int rc = 0;
    const std::string log = test::run_command(
        "cd " + (dir / sub).string() + " && " + cc + " -c -O2 -std=gnu11 -fopenmp -trigraphs k.c -o k.o", rc);
    EXPECT_EQ(rc, 0) << log << a.source;
    std::ifstream in(dir / sub / "k.o", std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
  };
  const std::string benign = object_of("benign", "benign");
  ASSERT_FALSE(benign.empty());
  int i = 0;
  for (const auto& label : hostile_labels()) EXPECT_EQ(object_of(label, "h" + std::to_string(i++)), benign) << label;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace attune
