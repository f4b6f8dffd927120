// ir/error.hpp — the one exception type for errors a user can cause.
//
// Bad spec text, a malformed JSON file, a missing file, an impossible request: all raise
// attune::Error with a message that names the thing and the offending value (and, for text,
// the line:col). The CLI prints the message on one line and exits non-zero. Internal
// invariants are checked with ATTUNE_CHECK, which throws InternalError: a bug in attune.
#pragma once

#include <stdexcept>
#include <string>

#include "attune/attune_error.hpp"  // attune::Error

namespace attune {

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void internal_failure(const char* file, int line, const char* cond, const std::string& msg);

}  // namespace attune

#define ATTUNE_CHECK(cond, msg)                                              \
  do {                                                                       \
    if (!(cond)) ::attune::internal_failure(__FILE__, __LINE__, #cond, msg); \
  } while (0)
