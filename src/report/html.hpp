// report/html.hpp — the one escaping function every text of the report goes through, and the
// number formats the report prints.
//
// Everything a report shows from a database or a bench file (task names, specs, strategies,
// error messages, command lines) is untrusted: a database may come from another machine or
// person. Each such text reaches the page only through html_escape(), in element content and
// in attribute values alike (inline SVG is parsed by the HTML parser, so the same escaping
// holds there). Nothing from the data is ever written into a <script> or <style> element.
#pragma once

#include <string>
#include <string_view>

namespace attune::report {

// & < > " ' as character references; control characters other than tab and newline (which
// would make the page's text misleading, or NUL, which the parser drops) as '?'.
std::string html_escape(std::string_view text);

// html_escape() of at most `max_chars` bytes of `text` (cut at a UTF-8 boundary), with " ..."
// when something was left off.
std::string html_escape_cut(std::string_view text, std::size_t max_chars);

// Numbers as the page prints them: "%.*g" with `digits` significant digits; "n/a" for NaN and
// infinities.
std::string num(double x, int digits = 3);
// Fixed decimals ("%.*f"), for SVG coordinates and percentages; "0" for a non-finite value.
std::string fixed(double x, int decimals);

}  // namespace attune::report
