// codegen/c_safe.hpp — the one layer through which outside text reaches generated C, C++ or
// CUDA source (part of the codegen stage; libgen uses it too).
//
// Specs, traces and database rows may come from anyone, and attune compiles and runs what it
// generates from them. So:
//   - text is written into comments only through c_comment_lines() / comment_safe(), which no
//     input can end or escape: "*/" and "/*" are split, every "??" is split (trigraphs: "??/"
//     is a backslash), and a backslash, control byte, NUL or non-ASCII byte is shown as <hh>
//     (a backslash at a line's end would splice the next line into the comment);
//   - text is written into string literals only through c_string_literal();
//   - names become identifiers only after check_c_names() (the rules of ir/names.hpp), and
//     loop variables named after spec variables only after check_c_var_names();
//   - numbers read from outside (a template's eps) are written only through c_double_literal().
// Generated code never pastes a record's raw text: traces are re-serialised from the parsed,
// validated Trace (trace_to_string) before they are commented.
//
// Tests: tests/codegen/c_safe_test.cpp.
#pragma once

#include <string>
#include <string_view>

#include "ir/op.hpp"

namespace attune {

// `text` as the inside of one comment line: the rules above, and a newline shown as <0a>.
std::string comment_safe(std::string_view text);

// `text` as comment lines, each `lead` + comment_safe(line) + "\n" (an empty line is the lead
// without its trailing blanks). lead is " * " inside a block comment, "// " for line comments.
std::string c_comment_lines(std::string_view text, std::string_view lead = " * ");

// A double-quoted C/C++ string literal holding exactly `text` (octal escapes for anything
// but letters, digits, blanks and harmless punctuation; '?' escaped against trigraphs).
std::string c_string_literal(std::string_view text);

// A C double constant equal to `v` ("1e-05", "6.0", "-0.5"); throws InternalError for a NaN
// or an infinity, which no C literal spells.
std::string c_double_literal(double v);

// Throws attune::Error when a tensor name of `op` breaks ir/names.hpp's rules (an Op built
// in code, or read from a database, skips the spec parser that checks them first).
void check_c_names(const Op& op);

// Throws attune::Error when an iteration variable of `op` (a contraction's or any stage's) is not
// a C identifier: generated code names its loop variables after them (tensorize/index_c.hpp's
// cvar: v_<name>), and two names mapped onto the same identifier would become one variable.
void check_c_var_names(const Op& op);

}  // namespace attune
