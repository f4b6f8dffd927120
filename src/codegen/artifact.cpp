// artifact.cpp — renaming a kernel's entry point (artifact.hpp).
#include "codegen/artifact.hpp"

#include <utility>

#include "ir/error.hpp"

namespace attune {

std::string source_with_entry(const Artifact& a, const std::string& symbol) {
  const std::string from = "void " + a.entry + "(";
  const auto at = a.source.find(from);
  if (at == std::string::npos || a.source.find(from, at + 1) != std::string::npos)
    throw InternalError("a kernel's C does not define " + a.entry + " exactly once");
  std::string s = a.source;
  s.replace(at, from.size(), "void " + symbol + "(");
  // Each pre-packing symbol is defined once, as codegen prints it, and used nowhere else.
  const PrepackSymbols old = prepack_symbols(a.entry), now = prepack_symbols(symbol);
  const std::pair<std::string, std::string> renames[] = {{"long " + old.packed_bytes + "[", "long " + now.packed_bytes + "["},
                                                         {"void " + old.pack + "(", "void " + now.pack + "("},
                                                         {"void " + old.prepacked + "(", "void " + now.prepacked + "("}};
  for (const auto& [o, n] : renames)
    if (const auto p = s.find(o); p != std::string::npos) s.replace(p, o.size(), n);
  return s;
}

PrepackSymbols prepack_symbols(const std::string& entry) {
  return {entry + "_packed_bytes", entry + "_pack", entry + "_prepacked"};
}

}  // namespace attune
