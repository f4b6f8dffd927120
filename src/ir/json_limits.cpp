// json_limits.cpp — parse_json_limited(): bound size and nesting, then let nlohmann parse.
#include "ir/json_limits.hpp"

#include "ir/error.hpp"

namespace attune {

namespace {

// The first byte at which brackets and braces outside strings nest deeper than `max_depth`,
// or npos. Unbalanced or malformed text is left to the parser to report.
std::size_t too_deep_at(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

// nlohmann's messages open with "[json.exception.parse_error.101] parse error at "; keep the
// position and the reason.
std::string reason(const nlohmann::json::exception& e) {
  std::string s = e.what();
  if (s.starts_with("[json.exception.")) {
    const auto close = s.find("] ");
    if (close != std::string::npos) s = s.substr(close + 2);
  }
  if (s.starts_with("parse error at ")) s = s.substr(15);
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

nlohmann::json parse_json_limited(std::string_view text, const std::string& what, JsonLimits limits) {
  if (text.size() > limits.max_bytes)
    throw Error(what + ": JSON text too large (" + std::to_string(text.size()) + " bytes; at most " +
                std::to_string(limits.max_bytes) + ")");
  if (const auto at = too_deep_at(text, limits.max_depth); at != std::string_view::npos)
    throw Error(what + ": JSON nested deeper than " + std::to_string(limits.max_depth) + " levels (at byte " +
                std::to_string(at) + ")");
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    throw Error(what + ": invalid JSON: " + reason(e));
  }
}

}  // namespace attune
