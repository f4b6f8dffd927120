// c_text.cpp — small text helpers shared by the emitters.
#include "libgen/library.hpp"

namespace attune::libgen {

std::vector<const Kernel*> Library::of_family(const std::string& family) const {
  std::vector<const Kernel*> out;
  for (const auto& k : kernels)
    if (k.match && k.match->family->name == family) out.push_back(&k);
  return out;
}

std::string substitute(std::string text, const Library& lib) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"@P@", lib.name}, {"@U@", lib.macro}}) {
    for (std::size_t p = 0; (p = text.find(from, p)) != std::string::npos; p += to.size())
      text.replace(p, from.size(), to);
  }
  return text;
}

std::string pointer_params(const Family& f) {
  std::string s;
  for (const auto& a : f.c_order())
    s += (s.empty() ? "" : ", ") + std::string(a.role == ArgRole::output ? "float* " : "const float* ") + a.name;
  return s;
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : comment_safe(text)) {
    if (c == '|' || c == '`') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace attune::libgen
