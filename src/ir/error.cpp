#include "ir/error.hpp"

#include <sstream>

namespace attune {

void internal_failure(const char* file, int line, const char* cond, const std::string& msg) {
  std::ostringstream os;
  os << "internal error at " << file << ":" << line << ": " << cond << " failed: " << msg;
  throw InternalError(os.str());
}

}  // namespace attune
