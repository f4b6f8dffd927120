// The task hash: content_hash (ir/hash.hpp) over a task's spec and target.
#include <string>
#include <string_view>

#include "db/db.hpp"

namespace attune {

std::string task_hash(std::string_view spec, std::string_view target) {
  // Length prefixes keep ("ab", "c") and ("a", "bc") apart; the tag versions the scheme.
  std::string buf = "attune-task-v1\n";
  buf += std::to_string(spec.size()) + ":" + std::string(spec) + "\n";
  buf += std::to_string(target.size()) + ":" + std::string(target) + "\n";
  return content_hash(buf);
}

}  // namespace attune
