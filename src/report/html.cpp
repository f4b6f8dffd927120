// report/html.cpp — escaping and number formats (html.hpp).
#include "report/html.hpp"

#include <cmath>
#include <cstdio>

namespace attune::report {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
          out += '?';
        else if (c == 0x7f)
          out += '?';
        else
          out += c;
    }
  }
  return out;
}

std::string html_escape_cut(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) return html_escape(text);
  std::size_t n = max_chars;
  // Back up over UTF-8 continuation bytes so a character is never cut in half.
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return html_escape(text.substr(0, n)) + " ...";
}

std::string num(double x, int digits) {
  if (!std::isfinite(x)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  return buf;
}

std::string fixed(double x, int decimals) {
  if (!std::isfinite(x)) return "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

}  // namespace attune::report
