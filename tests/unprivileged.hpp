// unprivileged.hpp — running a test step without root's privileges, for the tests of
// permission errors (unreadable databases, directories, target folders).
//
// Root reads and writes every file whatever its mode, so as root `fn` runs in a forked child
// that hands `paths` to the user 'nobody' (uid and gid 65534) and becomes it; its result comes
// back through a pipe. As any other user `fn` simply runs.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <vector>

namespace attune::testing {

inline std::string as_unprivileged_owner(const std::vector<std::string>& paths,
                                         const std::function<std::string()>& fn) {
  if (::geteuid() != 0) return fn();
  constexpr uid_t kNobody = 65534;
  int fds[2];
  if (::pipe(fds) != 0) return "(pipe failed)";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    bool dropped = true;
    for (const auto& p : paths) dropped = dropped && ::chown(p.c_str(), kNobody, kNobody) == 0;
    dropped = dropped && ::setgid(kNobody) == 0 && ::setuid(kNobody) == 0;
    const std::string out = dropped ? fn() : "(could not become nobody)";
    const bool sent = ::write(fds[1], out.data(), out.size()) == static_cast<ssize_t>(out.size());
    ::_exit(sent ? 0 : 1);
  }
  ::close(fds[1]);
  std::string out;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

}  // namespace attune::testing
