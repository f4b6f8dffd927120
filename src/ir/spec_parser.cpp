// spec_parser.cpp — parse_spec(): op spec text -> validated Op.
//
// A recursive-descent pass over the tokens records every statement with its position
// (spec_parse_tree.hpp); then the statements are checked against each other and assembled into
// a contraction (spec_contraction.cpp) or a multi-stage op (spec_stages.cpp). Every problem
// raises attune::Error "line:col: message" via spec_error().
#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "ir/error.hpp"
#include "ir/names.hpp"
#include "ir/op.hpp"
#include "spec_lexer.hpp"
#include "spec_parse_tree.hpp"

namespace attune {

namespace {

using ir::at_str;
using ir::describe;
using ir::PAccess;
using ir::PExpr;
using ir::spec_error;
using ir::SrcPos;
using ir::Tok;
using ir::Token;

// Parentheses, unary minuses and calls recurse: bound them so that no input can exhaust the
// stack.
constexpr int kMaxNesting = 200;
constexpr int kMaxValueNodes = 2000;

class SpecParser {
 public:
  explicit SpecParser(std::string_view text) : toks_(ir::lex_spec(text)) {}

  ir::ParsedSpec parse() {
    while (true) {
      while (at(Tok::end_stmt)) next();
      if (at(Tok::eof)) break;
      statement();
      if (!at(Tok::end_stmt) && !at(Tok::eof))
        spec_error(peek().pos, "expected end of statement, found " + describe(peek()));
    }
    spec_.end = toks_.back().pos;
    return std::move(spec_);
  }

 private:
  // ---- token access ----
  const Token& peek(std::size_t k = 0) const {
    std::size_t j = i_ + k;
    return j < toks_.size() ? toks_[j] : toks_.back();
  }
  bool at(Tok k) const { return peek().kind == k; }
  Token next() {
    Token t = peek();
    if (i_ + 1 < toks_.size()) ++i_;
    return t;
  }
  Token expect(Tok k, const std::string& what) {
    if (!at(k)) spec_error(peek().pos, "expected " + what + ", found " + describe(peek()));
    return next();
  }

  // ---- statements ----
  void statement() {
    const Token& t = peek();
    if (t.kind != Tok::ident) spec_error(t.pos, "expected a statement, found " + describe(t));
    if (peek(1).kind == Tok::lbracket) return compute_statement();
    if (t.text == "op") return op_statement();
    if (t.text == "tensor") return tensor_statement();
    if (t.text == "var") return var_statement();
    if (t.text == "epilogue") return epilogue_statement();
    spec_error(t.pos, "unknown statement '" + t.text +
                          "' (expected op, tensor, var, epilogue or a compute statement such as "
                          "C[m, n] += A[m, k] * B[k, n])");
  }

  void op_statement() {
    Token kw = next();
    if (spec_.label) spec_error(kw.pos, "duplicate 'op' label (the first is at " + at_str(spec_.label_pos) + ")");
    if (!at(Tok::label) && !at(Tok::ident))
      spec_error(peek().pos, "expected a name after 'op', found " + describe(peek()));
    const Token name = next();
    if (auto why = label_problem(name.text)) spec_error(name.pos, "label '" + shown(name.text) + "' " + *why);
    spec_.label = name.text;
    spec_.label_pos = kw.pos;
  }

  std::int64_t positive_int(const std::string& what) {
    if (at(Tok::minus)) {
      Token m = next();
      Token v = expect(Tok::integer, what);
      spec_error(m.pos, what + " must be positive, got -" + v.text);
    }
    Token v = expect(Tok::integer, what);
    if (v.value <= 0) spec_error(v.pos, what + " must be positive, got " + v.text);
    return v.value;
  }

  void tensor_statement() {
    next();
    Token name = expect(Tok::ident, "a tensor name after 'tensor'");
    if (const auto* d = spec_.tensor(name.text))
      spec_error(name.pos, "duplicate tensor '" + name.text + "' (first declared at " + at_str(d->pos) + ")");
    if (auto why = tensor_name_problem(name.text)) spec_error(name.pos, "tensor name '" + name.text + "' " + *why);
    expect(Tok::lbracket, "'[' after tensor name '" + name.text + "'");
    Tensor t;
    t.name = name.text;
    __int128 numel = 1;
    while (true) {
      std::int64_t d = positive_int("dimension " + std::to_string(t.shape.size()) + " of '" + t.name + "'");
      t.shape.push_back(d);
      numel *= d;
      if (numel > ir::kMaxNumel) spec_error(name.pos, "tensor '" + t.name + "' is too large (more than 2^40 elements)");
      if (!at(Tok::comma)) break;
      next();
    }
    expect(Tok::rbracket, "',' or ']' in the shape of '" + t.name + "'");
    Token dt = expect(Tok::ident, "a dtype (f32, f16, i8, u8 or i32) after the shape of '" + t.name + "'");
    try {
      t.dtype = parse_dtype(dt.text);
    } catch (const Error& e) {
      spec_error(dt.pos, e.what());
    }
    spec_.tensors.push_back({std::move(t), name.pos});
  }

  void var_statement() {
    next();
    Token name = expect(Tok::ident, "a variable name after 'var'");
    if (const auto* v = spec_.var(name.text))
      spec_error(name.pos, "duplicate declaration of variable '" + name.text + "' (first at " + at_str(v->pos) + ")");
    expect(Tok::less, "'<' after variable '" + name.text + "'");
    std::int64_t e = positive_int("extent of '" + name.text + "'");
    spec_.vars.push_back({name.text, e, name.pos});
  }

  // OUT[idx] (= | += | max= | min= | mean=) value
  void compute_statement() {
    ir::PStage st;
    st.out = access();
    st.op_pos = peek().pos;
    st.reduce = assignment(st.out);
    nodes_ = 0;
    st.value = value();
    spec_.stages.push_back(std::move(st));
  }

  Reduce assignment(const PAccess& out) {
    if (at(Tok::plus_eq)) {
      next();
      return Reduce::sum;
    }
    if (at(Tok::assign)) {
      next();
      return Reduce::none;
    }
    if (at(Tok::ident) && peek(1).kind == Tok::assign) {
      const std::string& w = peek().text;
      const Reduce r = w == "max" ? Reduce::max : w == "min" ? Reduce::min : w == "mean" ? Reduce::mean : Reduce::none;
      if (r != Reduce::none) {
        next();
        next();
        return r;
      }
    }
    spec_error(peek().pos,
               "expected '=', '+=', 'max=', 'min=' or 'mean=' after " + out.a.str() + ", found " + describe(peek()));
  }

  void epilogue_statement() {
    Token kw = next();
    Token kind = expect(Tok::ident, "'bias' or 'relu' after 'epilogue'");
    if (kind.text == "bias") {
      if (spec_.bias)
        spec_error(kind.pos, "duplicate 'epilogue bias' (the first is at " + at_str(spec_.bias->pos) + ")");
      spec_.bias = access();
    } else if (kind.text == "relu") {
      if (spec_.relu)
        spec_error(kind.pos, "duplicate 'epilogue relu' (the first is at " + at_str(spec_.relu_pos) + ")");
      spec_.relu = true;
      spec_.relu_pos = kw.pos;
    } else {
      spec_error(kind.pos, "unknown epilogue '" + kind.text + "' (expected bias or relu)");
    }
  }

  PAccess access() {
    Token name = expect(Tok::ident, "a tensor access such as A[m, k]");
    PAccess pa;
    pa.a.tensor = name.text;
    pa.pos = name.pos;
    expect(Tok::lbracket, "'[' after '" + name.text + "'");
    while (true) {
      pa.index_pos.push_back(peek().pos);
      pa.a.index.push_back(sum());
      if (!at(Tok::comma)) break;
      next();
    }
    expect(Tok::rbracket, "',' or ']' in the indices of '" + name.text + "'");
    return pa;
  }

  // ---- value expressions: value := arith (cmp arith)?; arith := prod (('+'|'-') prod)*;
  // prod := unary (('*'|'/') unary)*; unary := '-' unary | atom; atom := NUMBER | READ | CALL |
  // 'inf' | '(' value ')' ----
  // Also bounds the nodes of one statement: a long chain such as a + a + ... is a deep tree, and
  // the checks and the destructor recurse through it.
  PExpr node(Expr e, SrcPos p, std::vector<PExpr> args = {}) {
    if (++nodes_ > kMaxValueNodes)
      spec_error(p, "value expression too long (more than " + std::to_string(kMaxValueNodes) + " operations)");
    PExpr x;
    x.node = std::move(e);
    x.pos = p;
    x.args = std::move(args);
    return x;
  }
  PExpr binary(BinaryFn f, SrcPos p, PExpr a, PExpr b) {
    std::vector<PExpr> args;
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    Expr e;
    e.kind = Expr::Kind::binary;
    e.binary_fn = f;
    return node(std::move(e), p, std::move(args));
  }

  PExpr value() {
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

  PExpr arith() {
    PExpr v = prod();
    while (at(Tok::plus) || at(Tok::minus)) {
      Token op = next();
      v = binary(op.kind == Tok::plus ? BinaryFn::add : BinaryFn::sub, op.pos, std::move(v), prod());
    }
    return v;
  }

  PExpr prod() {
    PExpr v = unary();
    while (at(Tok::star) || at(Tok::slash)) {
      Token op = next();
      v = binary(op.kind == Tok::star ? BinaryFn::mul : BinaryFn::div, op.pos, std::move(v), unary());
    }
    return v;
  }

  PExpr unary() {
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

  static Expr unary_node(UnaryFn f) {
    Expr e;
    e.kind = Expr::Kind::unary;
    e.unary_fn = f;
    return e;
  }

  PExpr atom() {
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

  // NAME '(' value (',' value)* ')'
  PExpr call() {
    const Token name = next();
    next();  // '('
    NestingGuard guard(depth_, name.pos, "value expression");
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

  static void arity(const Token& name, const std::vector<PExpr>& args, std::size_t n) {
    if (args.size() != n)
      spec_error(name.pos, "'" + name.text + "' takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") +
                               ", got " + std::to_string(args.size()));
  }

  PExpr make_call(const Token& name, std::vector<PExpr> args) {
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

  // ---- index expressions: sum := term (('+'|'-') term)*; term := '-' term | factor ('*' factor
  // | '/' INT)*; factor := INT | NAME | '(' sum ')' ----
  static std::int64_t checked(__int128 v, SrcPos p) {
    if (v > kMaxIndexCoefficient || v < -kMaxIndexCoefficient)
      spec_error(p, "index expression has a coefficient beyond 2^40");
    return static_cast<std::int64_t>(v);
  }

  static void add_scaled(AffineExpr& into, const AffineExpr& e, std::int64_t k, SrcPos p) {
    for (const auto& [v, c] : e.terms) {
      std::int64_t now = into.coeff(v);
      std::int64_t want = checked(static_cast<__int128>(now) + static_cast<__int128>(c) * k, p);
      into.add_term(v, want - now);
    }
    into.constant = checked(static_cast<__int128>(into.constant) + static_cast<__int128>(e.constant) * k, p);
  }

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

  AffineExpr sum() {
    NestingGuard guard(depth_, peek().pos);
    AffineExpr v = term();
    while (at(Tok::plus) || at(Tok::minus)) {
      Token op = next();
      AffineExpr w = term();
      if (v.divisor != 1 || w.divisor != 1)
        spec_error(op.pos, "a division must enclose the whole index, as in (p + 1 - r)/2");
      add_scaled(v, w, op.kind == Tok::plus ? 1 : -1, op.pos);
    }
    return v;
  }

  AffineExpr term() {
    if (at(Tok::minus)) {
      Token m = next();
      NestingGuard guard(depth_, m.pos);
      AffineExpr v = term();
      AffineExpr r;
      r.divisor = v.divisor;
      add_scaled(r, v, -1, m.pos);
      return r;
    }
    AffineExpr v = factor();
    while (true) {
      if (at(Tok::star)) {
        Token op = next();
        AffineExpr w = factor();
        if (v.divisor != 1 || w.divisor != 1)
          spec_error(op.pos, "a division must be the outermost operation of an index, as in (p + 1 - r)/2");
        if (!v.is_constant() && !w.is_constant())
          spec_error(op.pos, "index is not affine: '" + v.str() + "' * '" + w.str() + "' multiplies two variables");
        AffineExpr r;
        if (v.is_constant())
          add_scaled(r, w, v.constant, op.pos);
        else
          add_scaled(r, v, w.constant, op.pos);
        v = r;
      } else if (at(Tok::slash)) {
        Token op = next();
        if (at(Tok::minus)) spec_error(peek().pos, "a divisor must be a positive integer");
        Token d = expect(Tok::integer, "a divisor (positive integer) after '/'");
        if (d.value == 0) spec_error(d.pos, "division by zero");
        if (v.divisor != 1) spec_error(op.pos, "nested division; an index may divide only once");
        v.divisor = d.value;
      } else {
        return v;
      }
    }
  }

  AffineExpr factor() {
    const Token& t = peek();
    if (t.kind == Tok::integer) return AffineExpr::constant_of(next().value);
    if (t.kind == Tok::ident) {
      Token n = next();
      spec_.first_use.emplace(n.text, n.pos);
      return AffineExpr::var(n.text);
    }
    if (t.kind == Tok::lparen) {
      next();
      AffineExpr v = sum();
      expect(Tok::rparen, "')'");
      return v;
    }
    spec_error(t.pos, "expected an index expression, found " + describe(t));
  }

  // A label as it may be shown in a message: label_problem() names the offending byte.
  static std::string shown(const std::string& label) {
    std::string s;
    for (char c : label.substr(0, 40)) s += c > ' ' && c < 127 ? c : '?';
    return label.size() > 40 ? s + "..." : s;
  }

  std::vector<Token> toks_;
  std::size_t i_ = 0;
  int depth_ = 0;
  int nodes_ = 0;  // of the value expression being read
  ir::ParsedSpec spec_;
};

}  // namespace

Op parse_spec(std::string_view text) {
  // Far beyond any real op (a spec is a handful of lines); keeps the token list bounded.
  constexpr std::size_t kMaxSpecBytes = std::size_t{1} << 20;
  if (text.size() > kMaxSpecBytes)
    spec_error(SrcPos{}, "spec is too long (" + std::to_string(text.size()) + " bytes; at most 1 MiB)");
  const ir::ParsedSpec spec = SpecParser(text).parse();
  return spec.is_contraction() ? ir::build_contraction(spec) : ir::build_stages(spec);
}

}  // namespace attune
