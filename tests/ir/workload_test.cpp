// workload_test.cpp — every line of the shared workload files (cpu.txt, vta.txt) loads and
// round-trips through the printer; op_from_cli accepts each documented form of SPEC.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>


#include "ir/error.hpp"
#include "ir/op.hpp"
#include "temp_dir.hpp"

namespace attune {
namespace {

namespace fs = std::filesystem;

const std::string kWorkloads = std::string(ATTUNE_SOURCE_DIR) + "/bench/workloads/";

std::string temp_file(const std::string& name, const std::string& text) {
  static const test::TempDir dir("attune-ir-test");  // removed when the test process exits
  fs::path p = dir.path / name;
  std::ofstream(p) << text;
  return p.string();
}

std::vector<std::string> workload_files() {
  std::vector<std::string> files;
  for (const char* f : {"cpu.txt", "vta.txt"}) files.push_back(kWorkloads + f);
  return files;
}

TEST(Workloads, EveryLineRoundTrips) {
  int count = 0;
  for (const auto& f : workload_files()) {
    for (const Op& op : load_workload_file(f)) {
      SCOPED_TRACE(op.name);
      std::string text = print_spec(op);
      EXPECT_EQ(parse_spec(text), op) << text;
      EXPECT_EQ(canonical_spec(parse_spec(text)), canonical_spec(op));
      ++count;
    }
  }
  EXPECT_GE(count, 6);
}

TEST(Workloads, VtaLinesAreInt8) {
  for (const Op& op : load_workload_file(kWorkloads + "vta.txt")) {
    EXPECT_EQ(op.tensors[0].dtype, DType::i8) << op.name;
    EXPECT_EQ(op.accum_dtype(), DType::i32) << op.name;
  }
}

TEST(Workloads, BadLineNamesFileAndLine) {
  std::string f = temp_file("bad.txt", "# c\ng1 gemm M=4 N=4 K=4\n\ng2 gemm M=4 N=4 K=four\n");
  try {
    load_workload_file(f);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), f + ":4: gemm: parameter 'K' must be an integer, got 'four'");
  }
  std::string d = temp_file("dup.txt", "g1 gemm M=4 N=4 K=4\ng1 gemm M=4 N=4 K=4\n");
  EXPECT_THROW(load_workload_file(d), Error);
  std::string kv = temp_file("kv.txt", "g1 gemm M=4 N 4\n");
  try {
    load_workload_file(kv);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), kv + ":1: expected key=value, got 'N'");
  }
  EXPECT_THROW(load_workload_file("/nonexistent/attune.txt"), Error);
}

TEST(CliSpec, AllForms) {
  Op ref = instantiate_template("gemm", {{"M", "4"}, {"N", "5"}, {"K", "6"}});
  Op line = op_from_cli("tiny  gemm  M=4 N=5 K=6");
  EXPECT_EQ(line.name, "tiny");
  line.name = "gemm";
  EXPECT_EQ(line, ref);
  EXPECT_EQ(op_from_cli("gemm:M=4,N=5,K=6"), ref);
  EXPECT_EQ(op_from_cli("gemm M=4 N=5 K=6"), ref);
  std::string raw = canonical_spec(ref);
  Op r = op_from_cli(raw);
  EXPECT_EQ(canonical_spec(r), raw);
  std::string f = temp_file("spec.txt", "op from_file\n" + raw);
  EXPECT_EQ(op_from_cli(f).name, "from_file");
  std::string bad = temp_file("badspec.txt", "tensor A[4] f32\nO[i] += A[i]\n");
  try {
    op_from_cli(bad);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), bad + ":2:1: undeclared tensor 'O'");
  }
}

TEST(CliSpec, WorkloadNameFromEnvironment) {
  std::string f = temp_file("env.txt", "my_op  gemv  M=3 K=7\n");
  ::setenv("ATTUNE_WORKLOADS", f.c_str(), 1);
  Op op = op_from_cli("my_op");
  ::unsetenv("ATTUNE_WORKLOADS");
  EXPECT_EQ(op.name, "my_op");
  EXPECT_EQ(op.tensor("A").shape, (std::vector<std::int64_t>{3, 7}));
}

TEST(CliSpec, ProjectWorkloadName) {
  Op op = op_from_cli("rn50_c2_3x3");
  EXPECT_EQ(op.name, "rn50_c2_3x3");
  EXPECT_EQ(op.tensor("O").shape, (std::vector<std::int64_t>{1, 64, 56, 56}));
  EXPECT_EQ(op_from_cli("rn18_c2").accum_dtype(), DType::i32);
}

TEST(CliSpec, NothingMatches) {
  try {
    op_from_cli("no_such_workload_xyz");
    ADD_FAILURE();
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_EQ(m.rfind("cannot understand op spec 'no_such_workload_xyz': tried a workload line", 0), 0u) << m;
    EXPECT_NE(m.find("a raw spec"), std::string::npos);
    EXPECT_NE(m.find("workload name (searched: "), std::string::npos);
  }
  EXPECT_THROW(op_from_cli(""), Error);
  EXPECT_THROW(op_from_cli("gemm:M=4,N=5"), Error);
}

}  // namespace
}  // namespace attune
