// attune/attune_error.hpp — attune::Error, the one exception type for errors a user can cause.
//
// Bad spec text, a malformed JSON file, a missing file, an impossible request: all raise
// attune::Error with a message that names the thing and the offending value (and, for text,
// the line:col). Its own header, with standard headers only, because both sides throw or catch
// it: attune's internals (through error.hpp) and programs using the C++ API (attune.hpp,
// installed beside it).
#pragma once

#include <stdexcept>

namespace attune {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace attune
