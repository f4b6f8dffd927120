#include "runtime/files.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include "ir/error.hpp"

namespace attune::runtime {

std::string temp_name_for(const std::string& path) {
  static std::atomic<unsigned long> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

namespace {

// The pid in a temp_name_for() name ("....tmp.<pid>.<n>"), or nullopt for any other name.
std::optional<pid_t> temp_file_pid(std::string_view name) {
  const auto all_digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  const std::size_t last_dot = name.rfind('.');
  if (last_dot == std::string_view::npos || !all_digits(name.substr(last_dot + 1))) return std::nullopt;
  const std::string_view head = name.substr(0, last_dot);
  const std::size_t pid_dot = head.rfind('.');
  if (pid_dot == std::string_view::npos || !all_digits(head.substr(pid_dot + 1))) return std::nullopt;
  if (!head.substr(0, pid_dot).ends_with(".tmp")) return std::nullopt;
  return static_cast<pid_t>(std::stol(std::string(head.substr(pid_dot + 1))));
}

bool process_alive(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno != ESRCH); }

}  // namespace

int remove_stale_temp_files(const std::string& dir) {
  int removed = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    const std::optional<pid_t> pid = temp_file_pid(it->path().filename().string());
    if (!pid || process_alive(*pid)) continue;
    std::error_code rm;
    if (std::filesystem::remove(it->path(), rm)) ++removed;
  }
  return removed;
}

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::string tmp = temp_name_for(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw Error("cannot create '" + tmp + "': " + std::strerror(errno));
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw Error("cannot write '" + tmp + "': " + std::strerror(e));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw Error("cannot write '" + path + "': " + std::strerror(e));
  }
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace attune::runtime
