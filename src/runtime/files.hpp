// runtime/files.hpp — small file helpers for the build cache and the runner's scratch files.
#pragma once

#include <optional>
#include <string>

namespace attune::runtime {

// Writes through a uniquely named temporary beside `path` and renames it into place, so a
// reader (or a later run after this process was killed) sees the old file or the whole new one.
// Throws Error naming the path on failure.
void write_file_atomic(const std::string& path, const std::string& content);

// A name for a temporary beside `path`, unique across threads and processes.
std::string temp_name_for(const std::string& path);

// The whole file, or nullopt when it cannot be read.
std::optional<std::string> read_file(const std::string& path);

bool file_exists(const std::string& path);

}  // namespace attune::runtime
