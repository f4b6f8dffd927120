// hostile_spec_test.cpp — spec text written to attack what attune generates from it: names
// and labels that would break or escape generated C, and nesting that would exhaust the
// parser's stack. Each is refused with attune::Error "line:col: message".
#include <gtest/gtest.h>

#include <string>

#include "ir/error.hpp"
#include "ir/names.hpp"
#include "ir/op.hpp"

namespace attune {
namespace {

std::string error_of(const std::string& spec) {
  try {
    parse_spec(spec);
  } catch (const Error& e) {
    return e.what();
  }
  return "(accepted)";
}

const std::string kGemm = "tensor A[4, 8] f32\ntensor B[8, 5] f32\ntensor C[4, 5] f32\nC[m, n] += A[m, k] * B[k, n]\n";

TEST(HostileSpec, LabelsThatWouldEndAComment) {
  EXPECT_EQ(error_of("op */int_x=1,y/*\n" + kGemm),
            "1:4: label '*/int_x=1,y/*' holds '*'; a label has letters, digits and _ . - + = : , @ only");
  EXPECT_EQ(error_of("op a?\?/\n" + kGemm),
            "1:4: label 'a?\?/' holds '?'; a label has letters, digits and _ . - + = : , @ only");
  EXPECT_EQ(error_of("op a\\\n" + kGemm),
            "1:4: label 'a\\' holds '\\'; a label has letters, digits and _ . - + = : , @ only");
  EXPECT_EQ(error_of("op \"x\"\n" + kGemm),
            "1:4: label '\"x\"' holds '\"'; a label has letters, digits and _ . - + = : , @ only");
  EXPECT_EQ(error_of("op " + std::string(129, 'a') + "\n" + kGemm).substr(0, 4), "1:4:");
  // What labels were for still works.
  EXPECT_EQ(parse_spec("op resnet.c2-3x3:v=1,w@2\n" + kGemm).name, "resnet.c2-3x3:v=1,w@2");
}

TEST(HostileSpec, TensorNamesThatBreakGeneratedC) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"int", "is a C or C++ keyword"},
      {"for", "is a C or C++ keyword"},
      {"restrict", "is a C or C++ keyword"},
      {"typeof", "is a C or C++ keyword"},
      {"class", "is a C or C++ keyword"},
      {"buffers", "is a name attune's generated code uses itself"},
      {"vbc", "is a name attune's generated code uses itself"},
      {"NULL", "is a name attune's generated code uses itself"},
      {"expf", "is a name attune's generated code uses itself"},
      {"INFINITY", "is a name attune's generated code uses itself"},
      {"i_m", "starts with 'i_', which attune's generated names use"},
      {"v_p", "starts with 'v_', which attune's generated names use"},
      {"_Bool", "starts or ends with '_', which attune's generated names and the C implementation use"},
      {"acc_", "starts or ends with '_', which attune's generated names and the C implementation use"},
      {"size_t", "ends like a type or macro of the C headers (_t, _MAX, _MIN, _C)"},
      {"A_p_ws", "ends like a buffer attune generates (_ws, _r<digits>)"},
      {"A_l_r0", "ends like a buffer attune generates (_ws, _r<digits>)"},
  };
  for (const auto& [name, why] : bad) {
    SCOPED_TRACE(name);
    const std::string spec = "tensor " + name + "[4] f32\ntensor O[4] f32\nO[i] += " + name + "[i]\n";
    EXPECT_EQ(error_of(spec), "1:8: tensor name '" + name + "' " + why);
  }
  EXPECT_EQ(error_of("tensor A[4] f32; tensor " + std::string(65, 'x') + "[4] f32").substr(0, 5), "1:25:");
  // Names people write are fine.
  for (const char* ok : {"A", "B", "C", "Bias", "in0", "weights", "x", "r", "M"})
    EXPECT_FALSE(tensor_name_problem(ok)) << ok;
}

TEST(HostileSpec, DeepNestingIsAnErrorNotAStackOverflow) {
  const std::string decl = "tensor A[4] f32; tensor O[4] f32; O[i] += A[";
  const std::string parens = decl + std::string(8000, '(') + "i" + std::string(8000, ')') + "]";
  const std::string e1 = error_of(parens);
  EXPECT_EQ(e1.rfind("1:", 0), 0u) << e1;
  EXPECT_NE(e1.find("index expression nested too deeply (more than 200 levels"), std::string::npos) << e1;
  std::string minus = decl;
  for (int i = 0; i < 50000; ++i) minus += "-";
  const std::string e2 = error_of(minus + "i]");
  EXPECT_NE(e2.find("index expression nested too deeply"), std::string::npos) << e2;
  // Nesting people write is fine: 20 levels.
  EXPECT_NO_THROW(parse_spec(decl + std::string(20, '(') + "i" + std::string(20, ')') + "]"));
  EXPECT_NO_THROW(parse_spec(decl + "- - i + 3]"));
}

TEST(HostileSpec, HugeTextIsRefused) {
  const std::string e = error_of(kGemm + std::string(2 << 20, '\n'));
  EXPECT_EQ(e, "1:1: spec is too long (" + std::to_string(kGemm.size() + (2 << 20)) + " bytes; at most 1 MiB)");
}

TEST(HostileSpec, WorkloadNamesFollowTheLabelRules) {
  EXPECT_THROW(op_from_cli("x*/y gemm M=4 N=4 K=4"), Error);
  EXPECT_EQ(op_from_cli("g_1 gemm M=4 N=4 K=4").name, "g_1");
}

}  // namespace
}  // namespace attune
