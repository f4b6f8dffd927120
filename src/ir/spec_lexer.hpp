// spec_lexer.hpp — tokens of the op spec language (see ir/op.hpp), with 1-based
// line:col positions so every parse error can say where it is. Used by spec_parser.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attune::ir {

enum class Tok {
  ident,    // name or keyword (keywords are contextual)
  integer,  // non-negative decimal literal
  number,   // non-negative literal with a fraction or an exponent ("0.5", "1e-5")
  label,    // the free-form name after `op`
  lbracket,
  rbracket,
  comma,
  lparen,
  rparen,
  plus,
  minus,
  star,
  slash,
  less,
  less_eq,
  greater,
  greater_eq,
  equal,      // ==
  not_equal,  // !=
  assign,     // = (also the tail of max=, min=, mean=)
  plus_eq,
  end_stmt,  // newline or ';'
  eof,
};

struct SrcPos {
  int line = 1;
  int col = 1;
};

struct Token {
  Tok kind = Tok::eof;
  std::string text;
  SrcPos pos;
  long long value = 0;  // for integers
  double number = 0;    // for integers and numbers
};

// Largest integer literal accepted (keeps index arithmetic far from overflow).
constexpr long long kMaxLiteral = (1LL << 31) - 1;

// Throws attune::Error "line:col: message".
[[noreturn]] void spec_error(SrcPos pos, const std::string& message);

// How a token is named in messages: "'foo'", "end of line", "end of input".
std::string describe(const Token& t);

std::vector<Token> lex_spec(std::string_view text);

}  // namespace attune::ir
