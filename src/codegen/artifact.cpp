// artifact.cpp — renaming a kernel's entry point (artifact.hpp).
#include "codegen/artifact.hpp"

#include "ir/error.hpp"

namespace attune {

std::string source_with_entry(const Artifact& a, const std::string& symbol) {
  const std::string from = "void " + a.entry + "(";
  const auto at = a.source.find(from);
  if (at == std::string::npos || a.source.find(from, at + 1) != std::string::npos)
    throw InternalError("a kernel's C does not define " + a.entry + " exactly once");
  std::string s = a.source;
  s.replace(at, from.size(), "void " + symbol + "(");
  return s;
}

}  // namespace attune
