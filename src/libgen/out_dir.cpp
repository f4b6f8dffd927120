// out_dir.cpp — write_output(): the refusals, the marker, and replacing only libgen's own files.
#include "libgen/out_dir.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "ir/error.hpp"

namespace attune::libgen {

namespace {

namespace fs = std::filesystem;

// Trees an operating system owns: a library written into them could replace system files.
constexpr const char* kSystemTrees[] = {"/bin",    "/boot", "/dev",  "/etc", "/lib", "/lib32", "/lib64",
                                        "/libx32", "/proc", "/sbin", "/sys", "/usr", "/run"};

bool inside(const fs::path& p, const fs::path& tree) {
  auto a = p.begin(), b = tree.begin();
  for (; b != tree.end(); ++a, ++b)
    if (a == p.end() || *a != *b) return false;
  return true;
}

void refuse_protected(const std::string& dir) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  if (ec) throw Error(dir + ": cannot resolve the output directory: " + ec.message());
  auto refuse = [&](const std::string& why) {
    throw Error(dir + ": refusing to write a library into " + why + "; choose a new directory for it");
  };
  if (p == p.root_path()) refuse("the filesystem root");
  if (p.parent_path() == p.root_path()) refuse("a top-level directory (" + p.string() + ")");
  for (const char* tree : kSystemTrees)
    if (inside(p, tree)) refuse("the system directory " + std::string(tree));
  if (const char* home = std::getenv("HOME"); home && *home) {
    const fs::path h = fs::weakly_canonical(home, ec);
    if (!ec && p == h) refuse("the home directory itself");
  }
}

// A marker line names a file libgen wrote: relative, without '..' (never a way out of DIR).
bool safe_relative(const std::string& rel) {
  if (rel.empty() || rel.find('\0') != std::string::npos) return false;
  const fs::path p(rel);
  if (p.is_absolute() || p.has_root_name()) return false;
  return std::none_of(p.begin(), p.end(), [](const fs::path& c) { return c == ".." || c == "."; });
}

std::set<std::string> read_marker(const fs::path& marker) {
  std::ifstream in(marker);
  std::set<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#' && safe_relative(line)) out.insert(line);
  return out;
}

void write_text(const fs::path& p, const std::string& text) {
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  if (ec) throw Error(p.parent_path().string() + ": cannot create directory: " + ec.message());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Error(p.string() + ": cannot write");
}

void write_marker(const fs::path& dir, const std::vector<std::string>& files) {
  std::ostringstream os;
  os << "# Written by attune libgen. The files below are its output: `attune libgen --force` may\n"
        "# replace or remove them, and nothing else here. Delete this file to keep them as your own.\n";
  for (const auto& f : files) os << f << "\n";
  write_text(dir / kMarkerFile, os.str());
}

// The previous output's files when DIR may be written, else throws. DIR exists.
std::set<std::string> previous_output(const std::string& dir, bool force) {
  std::error_code ec;
  const bool empty = fs::is_empty(dir, ec);
  if (ec) throw Error(dir + ": cannot read the output directory: " + ec.message());
  if (empty) return {};
  const fs::path marker = fs::path(dir) / kMarkerFile;
  if (!fs::is_regular_file(fs::symlink_status(marker, ec)))
    throw Error(dir + ": the output directory is not empty and attune libgen did not write it (no " +
                std::string(kMarkerFile) + "); choose a new or empty directory");
  if (!force)
    throw Error(dir + ": the output directory holds an earlier attune libgen output; pass --force to replace it");
  return read_marker(marker);
}

// The first component of DIR/rel that is a symbolic link, or "" when none is (or none exists).
std::string first_symlink(const fs::path& dir, const std::string& rel) {
  fs::path at = dir;
  for (const auto& part : fs::path(rel)) {
    at /= part;
    std::error_code ec;
    const auto st = fs::symlink_status(at, ec);
    if (fs::is_symlink(st)) return at.string();
    if (!fs::exists(st)) return "";
  }
  return "";
}

// Refuses to write through a symbolic link, or over a file the previous output did not list.
void check_target(const fs::path& dir, const std::string& rel, const std::set<std::string>& previous) {
  if (const auto link = first_symlink(dir, rel); !link.empty())
    throw Error(link + ": is a symbolic link; attune libgen does not write through one");
  std::error_code ec;
  if (fs::exists(fs::symlink_status(dir / rel, ec)) && !previous.count(rel))
    throw Error((dir / rel).string() + ": exists and was not written by attune libgen; not replacing it");
}

}  // namespace

std::vector<std::string> write_output(const std::string& dir, const OutputFiles& files, bool force) {
  refuse_protected(dir);
  std::error_code ec;
  const auto st = fs::symlink_status(dir, ec);
  std::set<std::string> previous;
  if (fs::exists(st)) {
    if (!fs::is_directory(fs::status(dir, ec))) throw Error(dir + ": cannot write the library: not a directory");
    previous = previous_output(dir, force);
  }
  std::vector<std::string> written;
  for (const auto& [rel, text] : files) {
    if (!safe_relative(rel)) throw InternalError("libgen: generated file name '" + rel + "'");
    check_target(dir, rel, previous);
    written.push_back(rel);
  }
  std::sort(written.begin(), written.end());

  fs::create_directories(dir, ec);
  if (ec) throw Error(dir + ": cannot create the output directory: " + ec.message());
  // The marker first lists both outputs, so that a run cut short leaves a tree the next
  // --force may still clean; it lists only this output at the end.
  std::vector<std::string> both(previous.begin(), previous.end());
  both.insert(both.end(), written.begin(), written.end());
  std::sort(both.begin(), both.end());
  both.erase(std::unique(both.begin(), both.end()), both.end());
  write_marker(dir, both);
  for (const auto& [rel, text] : files) write_text(fs::path(dir) / rel, text);
  for (const auto& old : previous) {
    if (std::binary_search(written.begin(), written.end(), old)) continue;
    // Only a plain file, reached without a symbolic link: never anything outside DIR.
    const fs::path p = fs::path(dir) / old;
    if (first_symlink(dir, old).empty() && fs::is_regular_file(fs::symlink_status(p, ec))) fs::remove(p, ec);
  }
  write_marker(dir, written);
  return written;
}

}  // namespace attune::libgen
