// Correctness: match_family() recovers the template and parameters of every family and
// layout, including strides, padding, dilation, groups, epilogues and dtypes, and the
// multi-stage families' choices and real parameters; raw specs match nothing.
#include <gtest/gtest.h>

#include <cctype>

#include "ir/op.hpp"
#include "libgen/family_match.hpp"

namespace attune::libgen {
namespace {

std::map<std::string, std::string> parse_params(const std::string& text) {
  std::map<std::string, std::string> m;
  std::size_t start = 0;
  while (start < text.size()) {
    auto comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string kv = text.substr(start, comma - start);
    const auto eq = kv.find('=');
    m[kv.substr(0, eq)] = kv.substr(eq + 1);
    start = comma + 1;
  }
  return m;
}

struct Case {
  std::string family, params;
};

// The test's name: family and parameters, as gtest allows (letters, digits, '_'), e.g.
// gemm_M32_N48_K40.
std::string case_name(const Case& c) {
  std::string name = c.family + "_";
  for (char ch : c.params)
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')
      name += ch;
    else if (ch == ',')
      name += '_';
  return name;
}

class MatchEveryTemplate : public ::testing::TestWithParam<Case> {};

TEST_P(MatchEveryTemplate, RecoversFamilyAndParameters) {
  const Case& c = GetParam();
  const Op op = instantiate_template(c.family, parse_params(c.params));
  const auto m = match_family(parse_spec(canonical_spec(op)));  // what a task stores
  ASSERT_TRUE(m.has_value()) << c.family << ":" << c.params;
  EXPECT_EQ(m->family->name, c.family);
  for (const auto& [k, v] : parse_params(c.params)) EXPECT_EQ(m->params.at(k), v) << k;
  EXPECT_EQ(canonical_spec(instantiate_template(m->family->name, m->params)), canonical_spec(op));
}

INSTANTIATE_TEST_SUITE_P(
    Families, MatchEveryTemplate,
    ::testing::Values(Case{"gemm", "M=32,N=48,K=40"}, Case{"gemm", "M=1,N=7,K=5,epilogue=bias_relu"},
                      Case{"gemm", "M=4,N=4,K=4,dtype=int8"}, Case{"batch_matmul", "B=3,M=5,N=6,K=7,epilogue=relu"},
                      Case{"gemv", "M=9,K=11,epilogue=bias"},
                      Case{"conv1d", "N=2,L=20,C=3,K=4,R=3,stride=2,pad=1,dilation=2,layout=NLC"},
                      Case{"conv1d", "N=1,L=9,C=2,K=5,R=2,layout=NCL"},
                      Case{"conv2d", "N=1,H=10,W=10,C=8,K=16,R=3,S=3,pad=1,layout=NCHW"},
                      Case{"conv2d",
                           "N=2,H=9,W=7,C=6,K=4,R=3,S=2,stride=2,pad=1,dilation=2,groups=2,layout=NHWC,epilogue=bias"},
                      Case{"conv2d", "N=1,H=8,W=8,C=4,K=8,R=1,S=1,groups=4,layout=NCHW"},
                      Case{"conv2d", "N=1,H=6,W=6,C=4,K=4,R=3,S=3,dtype=f16"},
                      Case{"depthwise_conv2d", "N=1,H=8,W=8,C=5,R=3,S=3,stride=2,pad=1,layout=NHWC"},
                      Case{"depthwise_conv2d", "N=1,H=8,W=8,C=5,R=3,S=3,dilation=2,layout=NCHW,epilogue=relu"},
                      Case{"conv3d", "N=1,D=5,H=6,W=6,C=3,K=4,T=3,R=3,S=3,pad=1,layout=NDHWC"},
                      Case{"conv3d", "N=1,D=5,H=6,W=6,C=3,K=4,T=2,R=2,S=2,stride=2,layout=NCDHW"},
                      Case{"conv2d_transpose", "N=1,H=5,W=5,C=4,K=3,R=3,S=3,stride=2,pad=1,layout=NHWC"},
                      Case{"conv2d_transpose", "N=1,H=4,W=6,C=2,K=3,R=4,S=2,stride=3,layout=NCHW,epilogue=bias_relu"},
                      Case{"conv2d_capsule", "N=1,H=6,W=6,C=2,K=3,R=3,S=3,stride=1,pad=1,capsule=2"}),
    [](const auto& info) { return case_name(info.param); });

// The multi-stage families: sizes from shapes and window extents, stride and pad from the
// window index, choices tried in turn, real numbers (eps, clip bounds) probed.
INSTANTIATE_TEST_SUITE_P(
    StageFamilies, MatchEveryTemplate,
    ::testing::Values(Case{"softmax", "B=2,M=3,N=17"}, Case{"softmax", "M=4,N=8"}, Case{"log_softmax", "B=1,M=5,N=9"},
                      Case{"layernorm", "M=4,N=33"}, Case{"layernorm", "M=2,N=8,eps=0.001"},
                      Case{"rmsnorm", "M=3,N=10,eps=1e-05"}, Case{"batchnorm", "N=2,C=3,H=4,W=5,layout=NHWC"},
                      Case{"batchnorm", "N=1,C=4,H=3,W=3,eps=0.25,layout=NCHW"}, Case{"gelu", "M=3,N=7,form=erf"},
                      Case{"gelu", "M=3,N=7,form=tanh"}, Case{"clip", "M=2,N=5"}, Case{"clip", "M=2,N=5,lo=-1.5,hi=2"},
                      Case{"clip", "M=2,N=5,lo=-3,hi=-3"}, Case{"residual_add", "M=4,N=4,relu=1"},
                      Case{"residual_add", "M=4,N=4,relu=0"},
                      Case{"maxpool2d", "N=1,C=3,H=9,W=8,R=3,S=2,stride=2,pad=1,layout=NCHW"},
                      Case{"maxpool2d", "N=2,C=2,H=5,W=5,R=2,S=2,layout=NHWC"},
                      Case{"avgpool2d", "N=1,C=2,H=7,W=7,R=3,S=3,stride=2,pad=1,layout=NHWC"},
                      Case{"global_avgpool", "N=2,C=3,H=4,W=5,layout=NCHW"},
                      Case{"global_avgpool", "N=1,C=3,H=4,W=4,layout=NHWC"},
                      Case{"conv2d_bias_add_relu", "N=1,H=6,W=6,C=3,K=4,R=3,S=3,stride=2,pad=1"},
                      Case{"gemm_bias_gelu", "M=4,N=5,K=6,form=tanh"}, Case{"attention", "H=2,T=5,D=4"}),
    [](const auto& info) { return case_name(info.param); });

TEST(MatchFamily, SameShapeDifferentComputationIsAnotherFamily) {
  // softmax and log_softmax, gelu's two forms, maxpool and avgpool share every tensor shape.
  for (const auto& [fam, params] : std::vector<std::pair<std::string, std::string>>{
           {"log_softmax", "M=3,N=4"}, {"avgpool2d", "N=1,C=1,H=4,W=4,R=2,S=2"}, {"clip", "M=3,N=4,lo=0,hi=1"}}) {
    const auto m = match_family(instantiate_template(fam, parse_params(params)));
    ASSERT_TRUE(m) << fam;
    EXPECT_EQ(m->family->name, fam);
  }
  const auto tanh_form = match_family(instantiate_template("gelu", {{"M", "2"}, {"N", "2"}, {"form", "tanh"}}));
  ASSERT_TRUE(tanh_form);
  EXPECT_EQ(tanh_form->params.at("form"), "tanh");
  EXPECT_TRUE(tanh_form->is_f32());
  EXPECT_FALSE(tanh_form->bias());
}

TEST(MatchFamily, AStageSpecEditedByHandMatchesNothing) {
  // layernorm's text with the variance's mean= turned into a sum: no template writes it.
  std::string text = canonical_spec(instantiate_template("layernorm", {{"M", "2"}, {"N", "4"}}));
  const auto at = text.find("Var[m] mean=");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 12, "Var[m] +=");
  EXPECT_FALSE(match_family(parse_spec(text)));
}

TEST(MatchFamily, RawSpecMatchesNothing) {
  // gemv's computation, but its tensors are named differently: not the template.
  EXPECT_FALSE(match_family(parse_spec("tensor M[4,6] f32; tensor v[6] f32; tensor r[4] f32; r[i] += M[i,j] * v[j]")));
  EXPECT_FALSE(match_family(parse_spec("tensor A[4,4] f32; tensor C[4,4] f32; C[m,n] += A[m,n]")));
}

TEST(MatchFamily, ReportsDtypeAndEpilogue) {
  const auto m = match_family(
      instantiate_template("gemm", {{"M", "2"}, {"N", "3"}, {"K", "4"}, {"dtype", "int8"}, {"epilogue", "relu"}}));
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->is_f32());
  EXPECT_TRUE(m->relu());
  EXPECT_FALSE(m->bias());
}

}  // namespace
}  // namespace attune::libgen
