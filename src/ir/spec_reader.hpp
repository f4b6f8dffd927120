// spec_reader.hpp — the recursive-descent reader of the op spec language (ir/op.hpp, expr.hpp):
// tokens in, a ParsedSpec (spec_parse_tree.hpp) out, every error "line:col: message".
// spec_parser.cpp reads statements and index expressions, spec_values.cpp value expressions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/op.hpp"
#include "spec_lexer.hpp"
#include "spec_parse_tree.hpp"

namespace attune::ir {

// Parentheses, unary minuses and calls recurse: bounded so that no input can exhaust the stack.
inline constexpr int kMaxNesting = 200;
// The nodes of one value expression: a long chain such as a + a + ... is a deep tree, and the
// checks and the destructor recurse through it.
inline constexpr int kMaxValueNodes = 2000;

class SpecParser {
 public:
  explicit SpecParser(std::string_view text) : toks_(ir::lex_spec(text)) {}

  ir::ParsedSpec parse();

 private:
  // ---- token access ----
  const Token& peek(std::size_t k = 0) const;
  bool at(Tok k) const;
  Token next();
  Token expect(Tok k, const std::string& what);

  // ---- statements ----
  void statement();
  void op_statement();
  std::int64_t positive_int(const std::string& what);
  void tensor_statement();
  void check_constants_not_written() const;
  void var_statement();

  // OUT[idx] (= | += | max= | min= | mean=) value
  void compute_statement();
  Reduce assignment(const PAccess& out);
  void epilogue_statement();
  PAccess access();

  // ---- value expressions: value := arith (cmp arith)?; arith := prod (('+'|'-') prod)*;
  // prod := unary (('*'|'/') unary)*; unary := '-' unary | atom; atom := NUMBER | READ | CALL |
  // 'inf' | '(' value ')' ----
  // A node of the value expression being read (at most kMaxValueNodes).
  PExpr node(Expr e, SrcPos p, std::vector<PExpr> args = {});
  PExpr binary(BinaryFn f, SrcPos p, PExpr a, PExpr b);
  PExpr value();
  PExpr arith();
  PExpr prod();
  PExpr unary();
  static Expr unary_node(UnaryFn f);
  PExpr atom();

  // NAME '(' value (',' value)* ')'
  PExpr call();
  static void arity(const Token& name, const std::vector<PExpr>& args, std::size_t n);
  PExpr make_call(const Token& name, std::vector<PExpr> args);

  // ---- index expressions: sum := term (('+'|'-') term)*; term := '-' term | factor ('*' factor
  // | '/' INT)*; factor := INT | NAME | '(' sum ')' ----
  static std::int64_t checked(__int128 v, SrcPos p);
  static void add_scaled(AffineExpr& into, const AffineExpr& e, std::int64_t k, SrcPos p);

  // Counts the recursion of sum() and term() while it is under way.
  struct NestingGuard {
    NestingGuard(int& depth, SrcPos p, const char* what = "index expression") : depth_(depth) {
      if (++depth_ > kMaxNesting)
        spec_error(p, std::string(what) + " nested too deeply (more than " + std::to_string(kMaxNesting) +
                          " levels of parentheses, calls and unary minus)");
    }
    ~NestingGuard() { --depth_; }
    int& depth_;
  };
  AffineExpr sum();
  AffineExpr term();
  AffineExpr factor();

  // A label as it may be shown in a message: label_problem() names the offending byte.
  static std::string shown(const std::string& label);
  std::vector<Token> toks_;
  std::size_t i_ = 0;
  int depth_ = 0;
  int nodes_ = 0;  // of the value expression being read
  ir::ParsedSpec spec_;
};

}  // namespace attune::ir
