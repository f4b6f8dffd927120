// spec_lexer.cpp — splits op spec text into tokens (see spec_lexer.hpp). The only
// context it knows: after `op` at the start of a statement comes a free-form label.
#include "spec_lexer.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "ir/error.hpp"

namespace attune::ir {

void spec_error(SrcPos pos, const std::string& message) {
  throw Error(std::to_string(pos.line) + ":" + std::to_string(pos.col) + ": " + message);
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::end_stmt: return t.text == ";" ? "';'" : "end of line";
    case Tok::eof: return "end of input";
    default: return "'" + t.text + "'";
  }
}

namespace {

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }
bool is_label_char(char c) { return c > ' ' && c < 127 && c != ';' && c != '#'; }

class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}

  std::vector<Token> run() {
    while (true) {
      skip_blanks();
      SrcPos at = pos();
      if (i_ >= s_.size()) {
        push(Tok::eof, "", at);
        return out_;
      }
      char c = s_[i_];
      if (c == '\n' || c == ';') {
        advance();
        push(Tok::end_stmt, c == ';' ? ";" : "\\n", at);
      } else if (is_ident_start(c)) {
        lex_ident(at);
      } else if (is_digit(c)) {
        lex_integer(at);
      } else if (auto two = two_char_token(); two != Tok::eof) {
        std::string text(s_.substr(i_, 2));
        advance();
        advance();
        push(two, text, at);
      } else {
        Tok k;
        switch (c) {
          case '[': k = Tok::lbracket; break;
          case ']': k = Tok::rbracket; break;
          case ',': k = Tok::comma; break;
          case '(': k = Tok::lparen; break;
          case ')': k = Tok::rparen; break;
          case '+': k = Tok::plus; break;
          case '-': k = Tok::minus; break;
          case '*': k = Tok::star; break;
          case '/': k = Tok::slash; break;
          case '<': k = Tok::less; break;
          case '>': k = Tok::greater; break;
          case '=': k = Tok::assign; break;
          default: spec_error(at, "unexpected character " + show_char(c));
        }
        advance();
        push(k, std::string(1, c), at);
      }
    }
  }

 private:
  // +=, <=, >=, ==, != at the cursor; eof when none.
  Tok two_char_token() const {
    if (i_ + 1 >= s_.size() || s_[i_ + 1] != '=') return Tok::eof;
    switch (s_[i_]) {
      case '+': return Tok::plus_eq;
      case '<': return Tok::less_eq;
      case '>': return Tok::greater_eq;
      case '=': return Tok::equal;
      case '!': return Tok::not_equal;
      default: return Tok::eof;
    }
  }

  static std::string show_char(char c) {
    auto u = static_cast<unsigned char>(c);
    if (u > ' ' && u < 127) return std::string("'") + c + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", u);
    return buf;
  }

  SrcPos pos() const { return {line_, col_}; }
  void advance() {
    if (s_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++i_;
  }
  void push(Tok k, std::string text, SrcPos at, long long value = 0) {
    out_.push_back(Token{k, std::move(text), at, value});
  }

  // Spaces, tabs, carriage returns and comments (up to, not including, the newline).
  void skip_blanks() {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\r') {
        advance();
      } else if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') advance();
      } else {
        break;
      }
    }
  }

  bool at_statement_start() const { return out_.empty() || out_.back().kind == Tok::end_stmt; }

  void lex_ident(SrcPos at) {
    std::size_t b = i_;
    while (i_ < s_.size() && is_ident_char(s_[i_])) advance();
    bool label_follows = at_statement_start() && s_.substr(b, i_ - b) == "op";
    push(Tok::ident, std::string(s_.substr(b, i_ - b)), at);
    if (!label_follows) return;
    // `op NAME`: the name may hold characters an identifier may not ("resnet.c2-3x3").
    skip_blanks();
    if (i_ >= s_.size() || s_[i_] == '[' || !is_label_char(s_[i_])) return;
    SrcPos lat = pos();
    std::size_t lb = i_;
    while (i_ < s_.size() && is_label_char(s_[i_])) advance();
    push(Tok::label, std::string(s_.substr(lb, i_ - lb)), lat);
  }

  void lex_integer(SrcPos at) {
    std::size_t b = i_;
    long long v = 0;
    bool too_big = false;
    while (i_ < s_.size() && is_digit(s_[i_])) {
      v = v * 10 + (s_[i_] - '0');
      if (v > kMaxLiteral) {
        too_big = true;
        v = kMaxLiteral;
      }
      advance();
    }
    if (fraction_or_exponent_follows()) return lex_number(b, at);
    std::string text(s_.substr(b, i_ - b));
    if (too_big) spec_error(at, "integer " + text + " is too large (at most " + std::to_string(kMaxLiteral) + ")");
    push(Tok::integer, text, at, v);
    out_.back().number = static_cast<double>(v);
  }

  bool digit_at(std::size_t j) const { return j < s_.size() && is_digit(s_[j]); }
  bool fraction_or_exponent_follows() const {
    if (i_ >= s_.size()) return false;
    if (s_[i_] == '.') return digit_at(i_ + 1);
    if (s_[i_] != 'e' && s_[i_] != 'E') return false;
    return digit_at(i_ + 1) || ((i_ + 1 < s_.size() && (s_[i_ + 1] == '-' || s_[i_ + 1] == '+')) && digit_at(i_ + 2));
  }

  // digits [. digits] [e [+-] digits], the integer part already consumed from b.
  void lex_number(std::size_t b, SrcPos at) {
    if (s_[i_] == '.') {
      advance();
      while (digit_at(i_)) advance();
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      advance();
      if (i_ < s_.size() && (s_[i_] == '-' || s_[i_] == '+')) advance();
      if (!digit_at(i_)) spec_error(at, "malformed number: exponent without digits");
      while (digit_at(i_)) advance();
    }
    std::string text(s_.substr(b, i_ - b));
    if (text.size() > 40) spec_error(at, "number " + text.substr(0, 40) + "... is too long");
    const double v = std::strtod(text.c_str(), nullptr);
    if (!std::isfinite(v)) spec_error(at, "number " + text + " is out of range");
    push(Tok::number, text, at);
    out_.back().number = v;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  int line_ = 1;
  int col_ = 1;
  std::vector<Token> out_;
};

}  // namespace

std::vector<Token> lex_spec(std::string_view text) { return Lexer(text).run(); }

}  // namespace attune::ir
