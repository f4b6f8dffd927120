// ir/hash.hpp — the content hash every stage names things by (traces, tasks, artifacts).
#pragma once

#include <string>
#include <string_view>

namespace attune {

// SHA-256 of `bytes` as 64 lowercase hex digits; stable across platforms and runs.
std::string content_hash(std::string_view bytes);

}  // namespace attune
