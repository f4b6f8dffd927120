// ir/op.hpp — tensor computations (the first stage of the pipeline).
//
// An Op is either a contraction or a multi-stage op (expr.hpp: softmax, layernorm, pooling...,
// `stages` non-empty). A contraction is one einsum-like statement:
//
//   output[idx] (+)= product of inputs[idx]     then an optional epilogue (bias add, relu)
//
// over named iteration variables. Every index is an affine expression of the variables
// (`p*2 + r - 1`), optionally divided exactly by a constant (`(h + 1 - r)/2`, used by
// transposed convolutions: a non-integer quotient reads as zero). Reads outside a tensor's
// bounds are zero (padding). Variables that index the output are spatial; the others are
// reductions. The text form is parsed by parse_spec() and printed by print_spec(); the
// reference evaluator (evaluator.hpp) computes any Op directly and is the oracle for every
// correctness check.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/access.hpp"
#include "ir/expr.hpp"

namespace attune {

// Applied to each output element after the reduction: out = relu(out + bias[...]), then, when
// `value` is set, out = value, an elementwise expression (expr.hpp) over the output's spatial
// variables in which a read of the output tensor (always at the output's own indices) is the
// element computed so far. `value` is how a multi-stage op made of a contraction and pointwise
// statements on its result runs as one contraction (fold_epilogue.hpp); the bias and relu are
// the epilogue every backend and accelerator implements.
struct Epilogue {
  std::optional<Access> bias;
  bool relu = false;
  std::optional<Expr> value;
  bool empty() const { return !bias && !relu && !value; }
  bool operator==(const Epilogue&) const = default;
};

struct Op {
  std::string name;             // a label ("gemm_512"); not part of the computation
  std::vector<Tensor> tensors;  // in declaration order; kernels take buffers in this order
  Access output;                // written with +=, starting from zero
  std::vector<Access> inputs;   // multiplied together (one or more)
  std::vector<IterVar> vars;    // spatial variables in output order, then reductions
  Epilogue epilogue;

  // A multi-stage op: its stages in order; `tensors` then holds its inputs and its output (the
  // tensor the last stage writes), `locals` the intermediates the other stages write, `output`
  // is the last stage's `out`, and `inputs`, `vars` and `epilogue` are empty.
  std::vector<Stage> stages;
  std::vector<Tensor> locals;
  bool multi_stage() const { return !stages.empty(); }
  // A declared tensor or intermediate by name; nullptr when absent.
  const Tensor* find_tensor(std::string_view name) const;

  const Tensor& tensor(std::string_view name) const;  // throws Error when absent
  int tensor_index(std::string_view name) const;      // -1 when absent
  const IterVar& var(std::string_view name) const;    // throws Error when absent
  bool is_reduction(std::string_view var) const;
  std::vector<std::string> spatial_vars() const;
  std::vector<std::string> reduction_vars() const;
  // Names of the tensors read (inputs and bias; a multi-stage op's inputs), in declaration
  // order, without duplicates.
  std::vector<std::string> input_tensors() const;
  DType accum_dtype() const { return tensor(output.tensor).dtype; }

  // Multiply-adds in the iteration domain (product of extents) and 2x that as "flops";
  // the same count every GFLOP/s figure in attune uses. A multi-stage op counts one per point
  // of each stage's domain.
  std::int64_t macs() const;
  double flops() const { return 2.0 * static_cast<double>(macs()); }

  bool operator==(const Op&) const = default;  // compares the computation and the name
};

// ---- text form -------------------------------------------------------------------------
//
//   op conv2d_s2                        # optional label
//   tensor I[1, 56, 56, 64] f32
//   tensor W[3, 3, 64, 128] f32
//   tensor O[1, 28, 28, 128] f32
//   var g < 4                           # only for variables whose extent cannot be inferred
//   O[n, p, q, k] += I[n, p*2 + r - 1, q*2 + s - 1, c] * W[r, s, c, k]
//   epilogue bias Bias[k]
//   epilogue relu
//   epilogue O[n, p, q, k] = min(O[n, p, q, k], 6.0)     # an elementwise expression of the output
//
// Statements are separated by newlines or ';'. '#' starts a comment. A variable's extent is
// inferred from any tensor dimension it indexes alone. Every malformed input raises
// attune::Error whose message starts with "line:col: ".
Op parse_spec(std::string_view text);
std::string print_spec(const Op& op);  // parse_spec(print_spec(x)) == x

// ---- templates ---------------------------------------------------------------------------
struct TemplateParam {
  std::string name;
  std::string default_value;  // empty: required
  std::string help;
};
struct TemplateInfo {
  std::string name;  // "conv2d"
  std::string summary;
  std::vector<TemplateParam> params;
};
const std::vector<TemplateInfo>& list_templates();
// Throws Error naming the template and the parameter for unknown names, missing or bad values.
Op instantiate_template(std::string_view name, const std::map<std::string, std::string>& params);

// What the CLI accepts as SPEC, tried in this order:
//   a workload line      "gemm_512  gemm  M=512 N=512 K=512"
//   a template call      "conv2d:N=1,H=56,...,layout=NHWC"  (or "gemm M=4 N=4 K=4")
//   a raw spec           "tensor A[4,4] f32; ...; C[m,n] += A[m,k] * B[k,n]"
//   a file path          a file holding a raw spec
//   a workload name      "gemm_512", looked up in the workload files (ATTUNE_WORKLOADS,
//                        then bench/workloads/*.txt of the source tree)
Op op_from_cli(std::string_view arg);
// Parses every line of a workload file ("name op key=value ..."); throws Error with
// "file:line: ..." on a bad line.
std::vector<Op> load_workload_file(const std::string& path);

// A canonical text of the computation (print_spec without the label), used for hashing tasks.
std::string canonical_spec(const Op& op);

}  // namespace attune
