// runtime/files.hpp — small file helpers for the build cache and the runner's scratch files.
#pragma once

#include <optional>
#include <string>

namespace attune::runtime {

// Writes through a uniquely named temporary beside `path` and renames it into place, so a
// reader (or a later run after this process was killed) sees the old file or the whole new one.
// Throws Error naming the path on failure.
void write_file_atomic(const std::string& path, const std::string& content);

// A name for a temporary beside `path`, unique across threads and processes:
// "<path>.tmp.<pid>.<n>".
std::string temp_name_for(const std::string& path);

// Removes the temporaries (temp_name_for's names) in `dir` whose process is no longer alive on
// this machine: a process killed between creating one and renaming it into place leaves it.
// Returns how many were removed; files it cannot remove are left (another user's).
int remove_stale_temp_files(const std::string& dir);

// The whole file, or nullopt when it cannot be read.
std::optional<std::string> read_file(const std::string& path);

bool file_exists(const std::string& path);

}  // namespace attune::runtime
