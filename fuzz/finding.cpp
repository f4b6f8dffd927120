#include <cstdio>
#include <cstdlib>

#include "fuzz.hpp"

namespace attune::fuzz {

void finding(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "fuzz finding: %.*s\n%.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace attune::fuzz
