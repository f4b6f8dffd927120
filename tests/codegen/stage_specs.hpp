// Multi-stage ops at small shapes for the CUDA stage tests: every stage template (checked
// against list_templates(), so a new template must be added here), and one spec that reaches
// what the templates do not: min=, a divided index, f16 and i32 tensors, casts, select and
// comparisons.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "ir/op.hpp"

namespace attune::test {

inline const std::vector<std::string>& stage_template_specs() {
  static const std::vector<std::string> specs = {
      "softmax:B=2,M=3,N=17",
      "log_softmax:B=1,M=4,N=9",
      "layernorm:M=5,N=33",
      "rmsnorm:M=5,N=33",
      "batchnorm:N=1,C=3,H=5,W=5",
      "batchnorm:N=2,C=3,H=4,W=5,layout=NHWC",
      "gelu:M=4,N=9",
      "gelu:M=4,N=9,form=tanh",
      "clip:M=3,N=7",
      "residual_add:M=3,N=7,relu=1",
      "maxpool2d:N=1,C=2,H=7,W=7,R=3,S=3,stride=2,pad=1",
      "maxpool2d:N=2,C=3,H=6,W=5,R=2,S=3,stride=1,pad=1,layout=NHWC",
      "avgpool2d:N=1,C=2,H=7,W=7,R=3,S=3,stride=2,pad=1,layout=NHWC",
      "global_avgpool:N=2,C=3,H=4,W=4",
      "conv2d_bias_add_relu:N=1,H=6,W=6,C=4,K=8,R=3,S=3,stride=2,pad=1",
      "gemm_bias_gelu:M=8,N=12,K=8",
      "attention:H=2,T=8,D=4",
  };
  return specs;
}

// The templates that are contractions (tensorized on CUDA, not lowered stage by stage).
inline bool is_contraction_template(const std::string& name) {
  static const std::vector<std::string> names = {"gemm",   "batch_matmul",     "gemv",
                                                 "conv1d", "conv2d",           "depthwise_conv2d",
                                                 "conv3d", "conv2d_transpose", "conv2d_capsule"};
  return std::find(names.begin(), names.end(), name) != names.end();
}

inline const std::string& odd_stage_spec() {
  static const std::string spec =
      "op odd\n"
      "tensor X[4, 9] f32\n"
      "tensor H[4, 9] f16\n"
      "tensor Lo[4, 5] f32\n"
      "tensor Hh[4, 5] f16\n"
      "tensor Y[4, 5] i32\n"
      "var r < 3\n"
      "Lo[i, j] min= X[i, j*2 + r - 1]\n"
      "Hh[i, j] = f16(select(Lo[i, j] > 0.25, sigmoid(Lo[i, j]), abs(Lo[i, j])))\n"
      "Y[i, j] = i32(f32(Hh[i, j]) * 8 + f32(H[i, (j + 1)/2]) * 4 - Lo[i, j])\n";
  return spec;
}

// A template call through op_from_cli, raw spec text (a ';' or a newline in it) through
// parse_spec: op_from_cli takes raw text only when it has a `+=`.
inline Op stage_op(const std::string& spec) {
  return spec.find_first_of(";\n") == std::string::npos ? op_from_cli(spec) : parse_spec(spec);
}

}  // namespace attune::test
