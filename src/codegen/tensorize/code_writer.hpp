// An indenting source writer shared by the tensorizing emitters (CPU C and CUDA): one line at
// the current depth, open/close a brace block. The emitters derive from it.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace attune::tgen {

class CodeWriter {
 protected:
  void line(const std::string& s) { out_ << std::string(2 * depth_, ' ') << s << "\n"; }
  void lines(const std::vector<std::string>& v) {
    for (const auto& s : v) line(s);
  }
  void open(const std::string& s) {
    line(s);
    ++depth_;
  }
  void close() {
    --depth_;
    line("}");
  }

  int depth_ = 0;
  std::ostringstream out_;
};

}  // namespace attune::tgen
