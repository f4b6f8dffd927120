// c_safe.cpp — comments, string literals and names in generated source (codegen/c_safe.hpp).
#include "codegen/c_safe.hpp"

#include <cmath>
#include <cstdio>

#include "ir/error.hpp"
#include "ir/names.hpp"

namespace attune {

namespace {

std::string hex_byte(unsigned char u) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "<%02x>", u);
  return buf;
}

}  // namespace

std::string comment_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    const char prev = out.empty() ? ' ' : out.back();
    if (c == '\t') {
      out += ' ';
    } else if (u < 0x20 || u >= 0x7f || c == '\\') {
      out += hex_byte(u);
    } else if ((c == '/' && prev == '*') || (c == '*' && prev == '/') || (c == '?' && prev == '?')) {
      out += ' ';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

std::string c_comment_lines(std::string_view text, std::string_view lead) {
  std::string bare(lead);
  while (!bare.empty() && bare.back() == ' ') bare.pop_back();
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    out += line.empty() ? bare : std::string(lead) + comment_safe(line);
    out += '\n';
    start = end + 1;
  }
  return out;
}

std::string c_string_literal(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || c == '?') {
      out += '\\';
      out += c;
    } else if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", u);  // always three digits: never runs into the next
      out += buf;
    }
  }
  return out + "\"";
}

std::string c_double_literal(double v) {
  if (!std::isfinite(v)) throw InternalError("c_double_literal: " + number_text(v) + " has no C literal");
  std::string text = number_text(v);
  // "6" would be an int constant; the digits alone never hold '.', 'e' or "inf".
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

void check_c_names(const Op& op) {
  std::vector<Tensor> all = op.tensors;
  all.insert(all.end(), op.locals.begin(), op.locals.end());
  for (const auto& t : all)
    if (auto why = tensor_name_problem(t.name))
      throw Error("tensor name '" + comment_safe(t.name) + "' " + *why + "; it cannot appear in generated code");
}

void check_c_var_names(const Op& op) {
  auto check = [](const IterVar& v) {
    if (!is_c_identifier(v.name))
      throw Error("variable '" + comment_safe(v.name) +
                  "' is not a C identifier; it cannot name a loop in generated code");
  };
  for (const auto& v : op.vars) check(v);
  for (const auto& st : op.stages)
    for (const auto& v : st.vars) check(v);
}

}  // namespace attune
