// ir/locations.hpp — where attune finds its own files at run time: the target files and the
// attune-worker executable.
//
// Each is looked for in three places, in this order:
//   1. the environment (ATTUNE_TARGETS_DIR, ATTUNE_WORKER): a user's explicit choice wins;
//   2. an installed tree around the module this code is linked into (PREFIX/lib/libattune.so,
//      or PREFIX/bin/attune): PREFIX/share/attune/targets and PREFIX/libexec/attune/attune-worker
//      (the directories are the ones cmake/install.cmake installs to);
//   3. the build tree the code was compiled in (ATTUNE_SOURCE_DIR/targets, the worker's build path).
// This is the one place that knows those paths; src/ir/locations.cpp says how it finds the module.
//
// Tests: tests/ir/locations_test.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace attune {

// The directories that may hold target files (<dir>/<name>.json, <dir>/vta/<name>.json), in
// lookup order. Not all of them need exist.
std::vector<std::string> target_dirs();

// The attune-worker executable. Throws Error when $ATTUNE_WORKER is set and names no executable,
// or when none of the places above has one (the message lists what was tried).
std::string find_worker();

// The installation prefix of a module (a shared library or executable) at `module_path`: the
// directory above it when it lies in PREFIX/<libdir> or PREFIX/<bindir> as installed; nullopt
// otherwise (a build tree). Pure: looks at the path only.
std::optional<std::string> install_prefix_of(const std::string& module_path);

// The file of the module this code is linked into (libattune.so, or the executable that linked
// attune's libraries statically), made canonical.
std::string this_module_path();

}  // namespace attune
