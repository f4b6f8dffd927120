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
#include "spec_reader.hpp"

namespace attune::ir {

ir::ParsedSpec SpecParser::parse() {
  while (true) {
    while (at(Tok::end_stmt)) next();
    if (at(Tok::eof)) break;
    statement();
    if (!at(Tok::end_stmt) && !at(Tok::eof))
      spec_error(peek().pos, "expected end of statement, found " + describe(peek()));
  }
  check_constants_not_written();
  spec_.end = toks_.back().pos;
  return std::move(spec_);
}

const Token& SpecParser::peek(std::size_t k) const {
  std::size_t j = i_ + k;
  return j < toks_.size() ? toks_[j] : toks_.back();
}

bool SpecParser::at(Tok k) const { return peek().kind == k; }

Token SpecParser::next() {
  Token t = peek();
  if (i_ + 1 < toks_.size()) ++i_;
  return t;
}

Token SpecParser::expect(Tok k, const std::string& what) {
  if (!at(k)) spec_error(peek().pos, "expected " + what + ", found " + describe(peek()));
  return next();
}

void SpecParser::statement() {
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

void SpecParser::op_statement() {
  Token kw = next();
  if (spec_.label) spec_error(kw.pos, "duplicate 'op' label (the first is at " + at_str(spec_.label_pos) + ")");
  if (!at(Tok::label) && !at(Tok::ident))
    spec_error(peek().pos, "expected a name after 'op', found " + describe(peek()));
  const Token name = next();
  if (auto why = label_problem(name.text)) spec_error(name.pos, "label '" + shown(name.text) + "' " + *why);
  spec_.label = name.text;
  spec_.label_pos = kw.pos;
}

std::int64_t SpecParser::positive_int(const std::string& what) {
  if (at(Tok::minus)) {
    Token m = next();
    Token v = expect(Tok::integer, what);
    spec_error(m.pos, what + " must be positive, got -" + v.text);
  }
  Token v = expect(Tok::integer, what);
  if (v.value <= 0) spec_error(v.pos, what + " must be positive, got " + v.text);
  return v.value;
}

void SpecParser::tensor_statement() {
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
  if (at(Tok::ident) && peek().text == "const") {
    next();
    t.constant = true;
  }
  spec_.tensors.push_back({std::move(t), name.pos});
}

// `const` promises that a tensor's values never change between calls (a model's weights): no
// statement may write one.
void SpecParser::check_constants_not_written() const {
  auto check = [&](const PAccess& out) {
    const TensorDecl* d = spec_.tensor(out.a.tensor);
    if (d && d->t.constant)
      spec_error(out.pos, "tensor '" + out.a.tensor + "' is declared const (at " + at_str(d->pos) +
                              ") but this statement writes it");
  };
  for (const auto& st : spec_.stages) check(st.out);
  if (spec_.epilogue_value) check(spec_.epilogue_value->out);
}

void SpecParser::var_statement() {
  next();
  Token name = expect(Tok::ident, "a variable name after 'var'");
  if (const auto* v = spec_.var(name.text))
    spec_error(name.pos, "duplicate declaration of variable '" + name.text + "' (first at " + at_str(v->pos) + ")");
  expect(Tok::less, "'<' after variable '" + name.text + "'");
  std::int64_t e = positive_int("extent of '" + name.text + "'");
  spec_.vars.push_back({name.text, e, name.pos});
}

void SpecParser::compute_statement() {
  ir::PStage st;
  st.out = access();
  st.op_pos = peek().pos;
  st.reduce = assignment(st.out);
  nodes_ = 0;
  st.value = value();
  spec_.stages.push_back(std::move(st));
}

Reduce SpecParser::assignment(const PAccess& out) {
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

void SpecParser::epilogue_statement() {
  Token kw = next();
  if (at(Tok::ident) && peek(1).kind == Tok::lbracket) {
    if (spec_.epilogue_value)
      spec_error(kw.pos, "duplicate epilogue expression (the first is at " + at_str(spec_.epilogue_value->out.pos) + ")");
    ir::PStage st;
    st.out = access();
    st.op_pos = peek().pos;
    expect(Tok::assign, "'=' after the epilogue's " + st.out.a.str());
    nodes_ = 0;
    st.value = value();
    spec_.epilogue_value = std::move(st);
    return;
  }
  Token kind = expect(Tok::ident, "'bias', 'relu' or OUT[...] = expression after 'epilogue'");
  if (kind.text == "bias") {
    if (spec_.bias) spec_error(kind.pos, "duplicate 'epilogue bias' (the first is at " + at_str(spec_.bias->pos) + ")");
    spec_.bias = access();
  } else if (kind.text == "relu") {
    if (spec_.relu) spec_error(kind.pos, "duplicate 'epilogue relu' (the first is at " + at_str(spec_.relu_pos) + ")");
    spec_.relu = true;
    spec_.relu_pos = kw.pos;
  } else {
    spec_error(kind.pos, "unknown epilogue '" + kind.text + "' (expected bias, relu or OUT[...] = expression)");
  }
}

PAccess SpecParser::access() {
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

std::int64_t SpecParser::checked(__int128 v, SrcPos p) {
  if (v > kMaxIndexCoefficient || v < -kMaxIndexCoefficient)
    spec_error(p, "index expression has a coefficient beyond 2^40");
  return static_cast<std::int64_t>(v);
}

void SpecParser::add_scaled(AffineExpr& into, const AffineExpr& e, std::int64_t k, SrcPos p) {
  for (const auto& [v, c] : e.terms) {
    std::int64_t now = into.coeff(v);
    std::int64_t want = checked(static_cast<__int128>(now) + static_cast<__int128>(c) * k, p);
    into.add_term(v, want - now);
  }
  into.constant = checked(static_cast<__int128>(into.constant) + static_cast<__int128>(e.constant) * k, p);
}

AffineExpr SpecParser::sum() {
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

AffineExpr SpecParser::term() {
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

AffineExpr SpecParser::factor() {
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

std::string SpecParser::shown(const std::string& label) {
  std::string s;
  for (char c : label.substr(0, 40)) s += c > ' ' && c < 127 ? c : '?';
  return label.size() > 40 ? s + "..." : s;
}

}  // namespace attune::ir

namespace attune {

Op parse_spec(std::string_view text) {
  // Far beyond any real op (a spec is a handful of lines); keeps the token list bounded.
  constexpr std::size_t kMaxSpecBytes = std::size_t{1} << 20;
  if (text.size() > kMaxSpecBytes)
    ir::spec_error(ir::SrcPos{}, "spec is too long (" + std::to_string(text.size()) + " bytes; at most 1 MiB)");
  const ir::ParsedSpec spec = ir::SpecParser(text).parse();
  return spec.is_contraction() ? ir::build_contraction(spec) : ir::build_stages(spec);
}

}  // namespace attune
