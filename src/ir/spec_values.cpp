// spec_values.cpp — the value expressions of compute statements (spec_reader.hpp):
//   value := arith (cmp arith)?; arith := prod (('+'|'-') prod)*; prod := unary (('*'|'/') unary)*;
//   unary := '-' unary | atom; atom := NUMBER | READ | CALL | 'inf' | '(' value ')'
// Calls are the math functions, max/min, relu and clip (spelled with max and min), select and
// casts; a negative literal folds into its constant.
#include <limits>
#include <string>

#include <optional>

#include "ir/error.hpp"
#include "spec_reader.hpp"

namespace attune::ir {

PExpr SpecParser::node(Expr e, SrcPos p, std::vector<PExpr> args) {
  if (++nodes_ > kMaxValueNodes)
    spec_error(p, "value expression too long (more than " + std::to_string(kMaxValueNodes) + " operations)");
  PExpr x;
  x.node = std::move(e);
  x.pos = p;
  x.args = std::move(args);
  return x;
}

PExpr SpecParser::binary(BinaryFn f, SrcPos p, PExpr a, PExpr b) {
  std::vector<PExpr> args;
  args.push_back(std::move(a));
  args.push_back(std::move(b));
  Expr e;
  e.kind = Expr::Kind::binary;
  e.binary_fn = f;
  return node(std::move(e), p, std::move(args));
}

PExpr SpecParser::value() {
  NestingGuard guard(depth_, peek().pos, "value expression");
  PExpr l = arith();
  static const std::pair<Tok, BinaryFn> cmps[] = {{Tok::less, BinaryFn::lt},    {Tok::less_eq, BinaryFn::le},
                                                  {Tok::greater, BinaryFn::gt}, {Tok::greater_eq, BinaryFn::ge},
                                                  {Tok::equal, BinaryFn::eq},   {Tok::not_equal, BinaryFn::ne}};
  for (const auto& [t, f] : cmps) {
    if (!at(t)) continue;
    Token op = next();
    return binary(f, op.pos, std::move(l), arith());
  }
  return l;
}

PExpr SpecParser::arith() {
  PExpr v = prod();
  while (at(Tok::plus) || at(Tok::minus)) {
    Token op = next();
    v = binary(op.kind == Tok::plus ? BinaryFn::add : BinaryFn::sub, op.pos, std::move(v), prod());
  }
  return v;
}

PExpr SpecParser::prod() {
  PExpr v = unary();
  while (at(Tok::star) || at(Tok::slash)) {
    Token op = next();
    v = binary(op.kind == Tok::star ? BinaryFn::mul : BinaryFn::div, op.pos, std::move(v), unary());
  }
  return v;
}

PExpr SpecParser::unary() {
  if (!at(Tok::minus)) return atom();
  Token m = next();
  NestingGuard guard(depth_, m.pos, "value expression");
  PExpr v = unary();
  if (v.node.kind == Expr::Kind::constant) {  // a negative literal
    v.node.value = -v.node.value;
    v.pos = m.pos;
    return v;
  }
  std::vector<PExpr> args;
  args.push_back(std::move(v));
  return node(unary_node(UnaryFn::neg), m.pos, std::move(args));
}

Expr SpecParser::unary_node(UnaryFn f) {
  Expr e;
  e.kind = Expr::Kind::unary;
  e.unary_fn = f;
  return e;
}

PExpr SpecParser::atom() {
  const Token t = peek();
  if (t.kind == Tok::integer || t.kind == Tok::number) {
    next();
    return node(Expr::constant(t.number), t.pos);
  }
  if (t.kind == Tok::lparen) {
    next();
    PExpr v = value();
    expect(Tok::rparen, "')'");
    return v;
  }
  if (t.kind != Tok::ident)
    spec_error(t.pos, "expected a value (a tensor read, a number or a call such as exp(x)), found " + describe(t));
  if (peek(1).kind == Tok::lbracket) {
    PExpr r = node(Expr::read(Access{}), t.pos);
    r.read = access();
    return r;
  }
  if (peek(1).kind == Tok::lparen) return call();
  next();
  if (t.text == "inf") return node(Expr::constant(std::numeric_limits<double>::infinity()), t.pos);
  spec_error(t.pos, "'" + t.text + "' is not a value: read a tensor (" + t.text +
                        "[...]), call a function (exp(x)) or write a number");
}

PExpr SpecParser::call() {
  const Token name = next();
  next();  // '('
  // Each argument is a value(), which counts the nesting: a call adds one level, as printing
  // neg(x) for -x must not make a spec deeper than the one read (fuzz/corpus/spec_parser/
  // regression-neg-nesting.spec).
  // clip(x, lo, hi) is read as min(max(x, lo), hi): its arguments sit one level deeper than a
  // call's once printed, so they count that level here too (regression-clip-nesting.spec).
  std::optional<NestingGuard> desugared;
  if (name.text == "clip") desugared.emplace(depth_, name.pos, "value expression");
  std::vector<PExpr> args;
  if (!at(Tok::rparen)) {
    while (true) {
      args.push_back(value());
      if (!at(Tok::comma)) break;
      next();
    }
  }
  expect(Tok::rparen, "',' or ')' in the arguments of '" + name.text + "'");
  return make_call(name, std::move(args));
}

void SpecParser::arity(const Token& name, const std::vector<PExpr>& args, std::size_t n) {
  if (args.size() != n)
    spec_error(name.pos, "'" + name.text + "' takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") +
                             ", got " + std::to_string(args.size()));
}

PExpr SpecParser::make_call(const Token& name, std::vector<PExpr> args) {
  static const std::pair<const char*, UnaryFn> unaries[] = {
      {"exp", UnaryFn::exp},     {"log", UnaryFn::log}, {"sqrt", UnaryFn::sqrt},
      {"rsqrt", UnaryFn::rsqrt}, {"erf", UnaryFn::erf}, {"tanh", UnaryFn::tanh},
      {"abs", UnaryFn::abs},     {"neg", UnaryFn::neg}, {"sigmoid", UnaryFn::sigmoid}};
  for (const auto& [n, f] : unaries) {
    if (name.text != n) continue;
    arity(name, args, 1);
    return node(unary_node(f), name.pos, std::move(args));
  }
  const std::string& n = name.text;
  if (n == "max" || n == "min") {
    arity(name, args, 2);
    return binary(n == "max" ? BinaryFn::max : BinaryFn::min, name.pos, std::move(args[0]), std::move(args[1]));
  }
  if (n == "relu") {  // max(x, 0)
    arity(name, args, 1);
    return binary(BinaryFn::max, name.pos, std::move(args[0]), node(Expr::constant(0), name.pos));
  }
  if (n == "clip") {  // min(max(x, lo), hi)
    arity(name, args, 3);
    PExpr lo = binary(BinaryFn::max, name.pos, std::move(args[0]), std::move(args[1]));
    return binary(BinaryFn::min, name.pos, std::move(lo), std::move(args[2]));
  }
  if (n == "select") {
    arity(name, args, 3);
    Expr e;
    e.kind = Expr::Kind::select;
    return node(std::move(e), name.pos, std::move(args));
  }
  for (DType t : {DType::f32, DType::f16, DType::i8, DType::u8, DType::i32}) {
    if (n != dtype_name(t)) continue;
    arity(name, args, 1);
    Expr e;
    e.kind = Expr::Kind::cast;
    e.cast_to = t;
    return node(std::move(e), name.pos, std::move(args));
  }
  spec_error(name.pos, "unknown function '" + n +
                           "' (expected exp, log, sqrt, rsqrt, erf, tanh, abs, neg, sigmoid, max, min, relu, "
                           "clip, select or a cast such as f32)");
}

}  // namespace attune::ir
