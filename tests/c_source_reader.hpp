// c_source_reader.hpp — reading generated C the way a C compiler does, for the tests that
// check that outside text cannot inject code (tests/codegen/c_safe_test.cpp, tests/libgen/).
#pragma once

#include <string>

namespace attune::testing {

// Translation phases 1-3 as gcc -trigraphs runs them: trigraphs, line splices, then every
// comment becomes one blank and every string or character literal becomes "" or ''.
inline std::string code_outside_comments(std::string s) {
  const std::string tri = "=(/)'<!>-", rep = "#[\\]^{|}~";
  for (std::size_t p; (p = s.find("??")) != std::string::npos && p + 2 < s.size();) {
    const auto k = tri.find(s[p + 2]);
    if (k == std::string::npos) {
      s[p] = '\x01';  // not a trigraph: step past it
      continue;
    }
    s.replace(p, 3, 1, rep[k]);
  }
  for (auto& c : s)
    if (c == '\x01') c = '?';
  for (std::size_t p; (p = s.find("\\\n")) != std::string::npos;) s.erase(p, 2);
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "/*") == 0) {
      const auto e = s.find("*/", i + 2);
      i = e == std::string::npos ? s.size() : e + 2;
      out += ' ';
    } else if (s.compare(i, 2, "//") == 0) {
      i = s.find('\n', i);
      if (i == std::string::npos) i = s.size();
    } else if (s[i] == '"' || s[i] == '\'') {
      const char q = s[i++];
      while (i < s.size() && s[i] != q) i += s[i] == '\\' ? 2 : 1;
      ++i;
      out += std::string(2, q);
    } else {
      out += s[i++];
    }
  }
  return out;
}

}  // namespace attune::testing
