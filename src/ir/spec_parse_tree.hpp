// spec_parse_tree.hpp — what the spec parser read, with the position of every part, before the
// statements are checked against each other. spec_parser.cpp fills it from the tokens;
// spec_contraction.cpp builds a contraction Op from it and spec_stages.cpp a multi-stage one,
// each raising "line:col: message" for what is wrong.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/op.hpp"
#include "spec_lexer.hpp"

namespace attune::ir {

std::string at_str(SrcPos p);  // "3:14"

struct PAccess {
  Access a;
  SrcPos pos;
  std::vector<SrcPos> index_pos;
};

// An expression node with its position; `node` holds everything but the arguments.
struct PExpr {
  Expr node;
  SrcPos pos;
  PAccess read;  // loads
  std::vector<PExpr> args;
  Expr to_expr() const;
};

struct PStage {
  PAccess out;
  Reduce reduce = Reduce::none;
  SrcPos op_pos;  // of '=', '+=', 'max='...
  PExpr value;
};

struct TensorDecl {
  Tensor t;
  SrcPos pos;
};

struct VarDecl {
  std::string name;
  std::int64_t extent;
  SrcPos pos;
};

struct ParsedSpec {
  std::optional<std::string> label;
  SrcPos label_pos;
  std::vector<TensorDecl> tensors;
  std::vector<VarDecl> vars;
  std::vector<PStage> stages;
  std::optional<PAccess> bias;  // epilogue bias
  bool relu = false;
  SrcPos relu_pos;
  std::optional<PStage> epilogue_value;  // epilogue OUT[idx] = value
  std::map<std::string, SrcPos> first_use;  // of each index variable
  SrcPos end;                               // of the input

  const TensorDecl* tensor(const std::string& name) const;
  const VarDecl* var(const std::string& name) const;
  // The declaration of pa's tensor; raises an error when it is undeclared or the rank differs.
  const TensorDecl& check_access(const PAccess& pa) const;
  // A single `+=` statement whose value is a product of reads: the contraction form.
  bool is_contraction() const;
};

// A read, or reads multiplied together.
bool is_product_of_reads(const PExpr& e);

// Every index of the written access `out` stays inside `t` over the variables' extents.
void check_output_range(const PAccess& out, const Tensor& t,
                        const std::function<std::int64_t(const std::string&)>& extent_of);

// The extent of variable `v` in a statement writing `out` and reading `ins` (and `bias`): its
// `var` declaration, else inferred (extent_inference.hpp); an error at its first use when the
// inference is ambiguous or finds nothing.
std::int64_t variable_extent(const ParsedSpec& spec, const std::vector<Tensor>& tensors, const Access& out,
                             const std::vector<Access>& ins, const std::optional<Access>& bias, const std::string& v);

// The largest number of points of one iteration domain, and of elements of one tensor.
inline constexpr __int128 kMaxDomain = static_cast<__int128>(1) << 62;
inline constexpr std::int64_t kMaxNumel = std::int64_t{1} << 40;

Op build_contraction(const ParsedSpec& spec);
Op build_stages(const ParsedSpec& spec);

}  // namespace attune::ir
