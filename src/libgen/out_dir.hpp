// libgen/out_dir.hpp — writing the generated tree without destroying anything else.
//
// libgen writes into a directory the user names, possibly one that holds their own work. So
// the directory must be new, empty, or hold libgen's own earlier output, which a marker file
// (DIR/.attune-libgen) lists; that output is replaced only with --force, and only the files the
// marker lists are ever replaced or removed. The filesystem root, top-level directories, system
// trees (/usr, /etc, /bin, /lib, ...) and the home directory itself are refused outright.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace attune::libgen {

inline constexpr const char* kMarkerFile = ".attune-libgen";

// (relative path, text) of every file to write.
using OutputFiles = std::vector<std::pair<std::string, std::string>>;

// Writes `files` into `dir` under the rules above; returns their relative paths, sorted.
// Throws attune::Error, before writing anything, when a rule refuses.
std::vector<std::string> write_output(const std::string& dir, const OutputFiles& files, bool force);

}  // namespace attune::libgen
