// spec_parser.cpp — parse_spec(): op spec text -> validated Op.
//
// Two phases: a recursive-descent pass over the tokens that records every statement with its
// position, then build(), which checks the statements against each other (declared tensors,
// ranks, variable extents, output bounds, dtype combinations) and assembles the Op. Every
// problem raises attune::Error "line:col: message" via spec_error().
#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "extent_inference.hpp"
#include "ir/error.hpp"
#include "ir/names.hpp"
#include "ir/op.hpp"
#include "spec_lexer.hpp"

namespace attune {

namespace {

using ir::describe;
using ir::spec_error;
using ir::SrcPos;
using ir::Tok;
using ir::Token;

constexpr std::int64_t kMaxNumel = std::int64_t{1} << 40;        // elements of one tensor
constexpr __int128 kMaxDomain = static_cast<__int128>(1) << 62;  // points of the iteration domain
// Parentheses and unary minuses recurse: bound them so that no input can exhaust the stack.
constexpr int kMaxNesting = 200;

std::string at_str(SrcPos p) { return std::to_string(p.line) + ":" + std::to_string(p.col); }

struct PAccess {
  Access a;
  SrcPos pos;
  std::vector<SrcPos> index_pos;
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

class SpecParser {
 public:
  explicit SpecParser(std::string_view text) : toks_(ir::lex_spec(text)) {}

  Op parse() {
    while (true) {
      while (at(Tok::end_stmt)) next();
      if (at(Tok::eof)) break;
      statement();
      if (!at(Tok::end_stmt) && !at(Tok::eof))
        spec_error(peek().pos, "expected end of statement, found " + describe(peek()));
    }
    return build();
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
    if (label_) spec_error(kw.pos, "duplicate 'op' label (the first is at " + at_str(label_pos_) + ")");
    if (!at(Tok::label) && !at(Tok::ident))
      spec_error(peek().pos, "expected a name after 'op', found " + describe(peek()));
    const Token name = next();
    if (auto why = label_problem(name.text)) spec_error(name.pos, "label '" + shown(name.text) + "' " + *why);
    label_ = name.text;
    label_pos_ = kw.pos;
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
    for (const auto& d : tensors_)
      if (d.t.name == name.text)
        spec_error(name.pos, "duplicate tensor '" + name.text + "' (first declared at " + at_str(d.pos) + ")");
    if (auto why = tensor_name_problem(name.text)) spec_error(name.pos, "tensor name '" + name.text + "' " + *why);
    expect(Tok::lbracket, "'[' after tensor name '" + name.text + "'");
    Tensor t;
    t.name = name.text;
    __int128 numel = 1;
    while (true) {
      std::int64_t d = positive_int("dimension " + std::to_string(t.shape.size()) + " of '" + t.name + "'");
      t.shape.push_back(d);
      numel *= d;
      if (numel > kMaxNumel) spec_error(name.pos, "tensor '" + t.name + "' is too large (more than 2^40 elements)");
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
    tensors_.push_back({std::move(t), name.pos});
  }

  void var_statement() {
    next();
    Token name = expect(Tok::ident, "a variable name after 'var'");
    for (const auto& v : var_decls_)
      if (v.name == name.text)
        spec_error(name.pos, "duplicate declaration of variable '" + name.text + "' (first at " + at_str(v.pos) + ")");
    expect(Tok::less, "'<' after variable '" + name.text + "'");
    std::int64_t e = positive_int("extent of '" + name.text + "'");
    var_decls_.push_back({name.text, e, name.pos});
  }

  void compute_statement() {
    SrcPos p = peek().pos;
    if (output_)
      spec_error(p, "second compute statement (the first is at " + at_str(output_->pos) + "); an op has exactly one");
    PAccess out = access();
    expect(Tok::plus_eq, "'+=' after the output access " + out.a.str());
    std::vector<PAccess> ins;
    ins.push_back(access());
    while (at(Tok::star)) {
      next();
      ins.push_back(access());
    }
    output_ = std::move(out);
    inputs_ = std::move(ins);
  }

  void epilogue_statement() {
    Token kw = next();
    Token kind = expect(Tok::ident, "'bias' or 'relu' after 'epilogue'");
    if (kind.text == "bias") {
      if (bias_) spec_error(kind.pos, "duplicate 'epilogue bias' (the first is at " + at_str(bias_->pos) + ")");
      bias_ = access();
    } else if (kind.text == "relu") {
      if (relu_) spec_error(kind.pos, "duplicate 'epilogue relu' (the first is at " + at_str(relu_pos_) + ")");
      relu_ = true;
      relu_pos_ = kw.pos;
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
    NestingGuard(int& depth, SrcPos p) : depth_(depth) {
      if (++depth_ > kMaxNesting)
        spec_error(p, "index expression nested too deeply (more than " + std::to_string(kMaxNesting) +
                          " levels of parentheses and unary minus)");
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
      first_use_.emplace(n.text, n.pos);
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

  // ---- semantic checks ----
  const TensorDecl& check_access(const PAccess& pa) {
    const TensorDecl* d = nullptr;
    for (const auto& x : tensors_)
      if (x.t.name == pa.a.tensor) d = &x;
    if (!d) spec_error(pa.pos, "undeclared tensor '" + pa.a.tensor + "'");
    if (d->t.shape.size() != pa.a.index.size())
      spec_error(pa.pos, "tensor '" + pa.a.tensor + "' has rank " + std::to_string(d->t.shape.size()) +
                             " but is indexed with " + std::to_string(pa.a.index.size()) + " indices");
    return *d;
  }

  static void note_vars(const Access& a, std::vector<std::string>& order) {
    for (const auto& e : a.index)
      for (const auto& [v, c] : e.terms)
        if (std::find(order.begin(), order.end(), v) == order.end()) order.push_back(v);
  }

  const VarDecl* declared(const std::string& v) const {
    for (const auto& d : var_decls_)
      if (d.name == v) return &d;
    return nullptr;
  }

  SrcPos end_pos() const { return toks_.back().pos; }

  void check_dtypes(const Tensor& out) const {
    std::vector<DType> in;
    for (const auto& pa : inputs_) in.push_back(tensor_of(pa.a.tensor).dtype);
    auto all = [&](auto pred) { return std::all_of(in.begin(), in.end(), pred); };
    auto count = [&](DType t) { return std::count(in.begin(), in.end(), t); };
    DType o = out.dtype;
    bool ok = (all([](DType t) { return t == DType::f32; }) && o == DType::f32) ||
              (all([](DType t) { return t == DType::f16; }) && (o == DType::f16 || o == DType::f32)) ||
              (all([](DType t) { return t == DType::i8 || t == DType::u8; }) && count(DType::i8) >= 1 &&
               count(DType::u8) <= 1 && o == DType::i32);
    if (ok) return;
    std::string s;
    for (auto t : in) s += (s.empty() ? "" : " * ") + std::string(dtype_name(t));
    spec_error(output_->pos, "unsupported dtypes " + s + " -> " + std::string(dtype_name(o)) +
                                 " (allowed: f32*f32->f32, f16*f16->f32 or f16, i8*i8->i32, u8*i8->i32)");
  }

  const Tensor& tensor_of(const std::string& n) const {
    for (const auto& d : tensors_)
      if (d.t.name == n) return d.t;
    throw InternalError("tensor_of: " + n);
  }

  Op build() {
    if (!output_) spec_error(end_pos(), "missing compute statement (such as C[m, n] += A[m, k] * B[k, n])");
    const PAccess& out = *output_;
    const Tensor& out_t = check_access(out).t;
    for (const auto& pa : inputs_) {
      check_access(pa);
      if (pa.a.tensor == out.a.tensor)
        spec_error(pa.pos, "tensor '" + pa.a.tensor + "' is both the output and an input");
    }
    if (bias_) {
      check_access(*bias_);
      if (bias_->a.tensor == out.a.tensor)
        spec_error(bias_->pos, "bias tensor '" + bias_->a.tensor + "' is the output");
    }
    for (std::size_t d = 0; d < out.a.index.size(); ++d)
      if (out.a.index[d].divisor != 1)
        spec_error(out.index_pos[d], "output index '" + out.a.index[d].str() + "' must not divide");

    std::vector<std::string> spatial, reduction;
    note_vars(out.a, spatial);
    std::vector<std::string> read;
    for (const auto& pa : inputs_) note_vars(pa.a, read);
    for (const auto& v : read)
      if (std::find(spatial.begin(), spatial.end(), v) == spatial.end()) reduction.push_back(v);
    if (bias_) {
      for (std::size_t d = 0; d < bias_->a.index.size(); ++d)
        for (const auto& [v, c] : bias_->a.index[d].terms)
          if (std::find(spatial.begin(), spatial.end(), v) == spatial.end())
            spec_error(bias_->index_pos[d], "bias index uses '" + v + "', which does not index the output");
    }
    for (const auto& d : var_decls_) {
      bool used = std::find(spatial.begin(), spatial.end(), d.name) != spatial.end() ||
                  std::find(reduction.begin(), reduction.end(), d.name) != reduction.end();
      if (!used) spec_error(d.pos, "variable '" + d.name + "' is declared but not used");
    }

    Op op;
    op.name = label_.value_or("");
    for (const auto& d : tensors_) op.tensors.push_back(d.t);
    op.output = out.a;
    for (const auto& pa : inputs_) op.inputs.push_back(pa.a);
    if (bias_) op.epilogue.bias = bias_->a;
    op.epilogue.relu = relu_;

    auto add_var = [&](const std::string& v, bool red) {
      std::int64_t extent;
      if (const VarDecl* d = declared(v)) {
        extent = d->extent;
      } else {
        auto inf = ir::infer_extent(op.tensors, op.output, op.inputs, op.epilogue.bias, v);
        SrcPos p = first_use_.at(v);
        if (!inf.ambiguity.empty())
          spec_error(p, "extent of '" + v + "' ambiguous (" + inf.ambiguity + "); declare it with 'var " + v + " < N'");
        if (!inf.extent)
          spec_error(p, "no extent for variable '" + v +
                            "': it indexes no tensor dimension alone; declare it with 'var " + v + " < N'");
        extent = *inf.extent;
      }
      op.vars.push_back(IterVar{v, extent, red});
    };
    for (const auto& v : spatial) add_var(v, false);
    for (const auto& v : reduction) add_var(v, true);

    __int128 domain = 1;
    for (const auto& v : op.vars) {
      domain *= v.extent;
      if (domain > kMaxDomain) spec_error(out.pos, "iteration domain too large (more than 2^62 points)");
    }

    for (std::size_t d = 0; d < out.a.index.size(); ++d) {
      const AffineExpr& e = out.a.index[d];
      __int128 lo = e.constant, hi = e.constant;
      for (const auto& [v, c] : e.terms) {
        __int128 span = static_cast<__int128>(c) * (op.var(v).extent - 1);
        (span < 0 ? lo : hi) += span;
      }
      if (lo < 0 || hi >= out_t.shape[d])
        spec_error(out.index_pos[d],
                   "output index '" + e.str() + "' ranges over [" + std::to_string(static_cast<long long>(lo)) + ", " +
                       std::to_string(static_cast<long long>(hi)) + "], outside dimension " + std::to_string(d) +
                       " of '" + out_t.name + "' (size " + std::to_string(out_t.shape[d]) + ")");
    }

    for (const auto& d : tensors_) {
      bool used = d.t.name == out.a.tensor || (bias_ && bias_->a.tensor == d.t.name);
      for (const auto& pa : inputs_) used = used || pa.a.tensor == d.t.name;
      if (!used) spec_error(d.pos, "tensor '" + d.t.name + "' is declared but not used");
    }

    check_dtypes(out_t);
    if (bias_) {
      DType bt = tensor_of(bias_->a.tensor).dtype;
      if (bt != out_t.dtype)
        spec_error(bias_->pos, "bias '" + bias_->a.tensor + "' is " + std::string(dtype_name(bt)) +
                                   " but the output '" + out_t.name + "' is " + std::string(dtype_name(out_t.dtype)) +
                                   "; they must match");
    }
    return op;
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
  std::optional<std::string> label_;
  SrcPos label_pos_;
  std::vector<TensorDecl> tensors_;
  std::vector<VarDecl> var_decls_;
  std::optional<PAccess> output_;
  std::vector<PAccess> inputs_;
  std::optional<PAccess> bias_;
  bool relu_ = false;
  SrcPos relu_pos_;
  std::map<std::string, SrcPos> first_use_;
};

}  // namespace

Op parse_spec(std::string_view text) {
  // Far beyond any real op (a spec is a handful of lines); keeps the token list bounded.
  constexpr std::size_t kMaxSpecBytes = std::size_t{1} << 20;
  if (text.size() > kMaxSpecBytes)
    spec_error(SrcPos{}, "spec is too long (" + std::to_string(text.size()) + " bytes; at most 1 MiB)");
  return SpecParser(text).parse();
}

}  // namespace attune
