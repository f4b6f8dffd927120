#include "runtime/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "runtime/interrupt.hpp"

extern char** environ;

namespace attune::runtime {

namespace {

using Clock = std::chrono::steady_clock;

// A pipe whose ends close themselves; both ends are close-on-exec so that concurrent spawns in
// other threads never inherit them (posix_spawn's dup2 clears the flag on the child's copy).
struct Pipe {
  int fd[2] = {-1, -1};
  bool open() { return ::pipe2(fd, O_CLOEXEC) == 0; }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
  ~Pipe() { close_end(0), close_end(1); }
};

std::vector<std::string> child_environment(const ProcessOptions& options) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    bool replaced = false;
    for (const auto& [k, v] : options.env)
      if (entry.size() > k.size() && entry.substr(0, k.size()) == k && entry[k.size()] == '=') replaced = true;
    if (!replaced) env.emplace_back(entry);
  }
  for (const auto& [k, v] : options.env) env.push_back(k + "=" + v);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Reads what is available on `fd` into `sink` (cut at `cap`); false at end of file.
bool read_some(int fd, std::string& sink, std::size_t cap) {
  char buf[8192];
  ssize_t n = ::read(fd, buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  std::size_t room = sink.size() < cap ? cap - sink.size() : 0;
  sink.append(buf, std::min<std::size_t>(room, static_cast<std::size_t>(n)));
  return true;
}

// Has the child exited? Leaves it unreaped (a zombie keeps its pid and process group id from
// being reused, so killing the group afterwards can only reach the child's own descendants).
bool has_exited(pid_t pid, bool block) {
  siginfo_t info{};
  int flags = WEXITED | WNOWAIT | (block ? 0 : WNOHANG);
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, flags) != 0)
    if (errno != EINTR) return true;  // nothing to wait for: treat as gone
  return info.si_pid == pid;
}

// The parent's ends of the child's stdout and stderr, each read until end of file.
struct ChildOutput {
  Pipe out, err;
  bool out_open = true, err_open = true;

  // The pipes still open, for poll() (-1 for a closed one, which poll() skips).
  std::array<pollfd, 2> poll_set() const {
    return {{{out_open ? out.fd[0] : -1, POLLIN, 0}, {err_open ? err.fd[0] : -1, POLLIN, 0}}};
  }
  // Reads what poll() found ready into r.out and r.err, each cut at `cap`.
  void read_ready(const std::array<pollfd, 2>& fds, ProcessResult& r, std::size_t cap) {
    if (fds[0].revents) out_open = read_some(out.fd[0], r.out, cap);
    if (fds[1].revents) err_open = read_some(err.fd[0], r.err, cap);
  }
};

// Starts argv in its own process group (to kill it whole), stdin from /dev/null and stdout and
// stderr into the pipes' write ends; posix_spawnp's result (0, or an errno).
int spawn_in_own_group(pid_t& pid, const std::vector<char*>& cargs, const std::vector<char*>& cenv, int out_fd,
                       int err_fd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group, default signal handling and an empty mask (the parent may ignore
  // SIGPIPE or block signals; the child should not inherit that).
  sigset_t none, defaults;
  sigemptyset(&none);
  sigfillset(&defaults);
  sigdelset(&defaults, SIGKILL);
  sigdelset(&defaults, SIGSTOP);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  const int rc = ::posix_spawnp(&pid, cargs[0], &actions, &attr, cargs.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc;
}

// Reads the child's output until it exits, or its time since `start` is up (then its group is
// killed and r.timed_out set); two seconds after an interrupt asked it to stop, it is killed.
void read_until_exit(pid_t pid, ChildOutput& o, ProcessResult& r, const ProcessOptions& options,
                     Clock::time_point start, const InterruptibleChild& interruptible) {
  const auto deadline = start + std::chrono::duration<double>(options.timeout_s);
  std::optional<Clock::time_point> asked_to_stop;  // when the interrupt sent the group SIGTERM
  for (bool exited = false; !exited;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    if (!asked_to_stop && interruptible.asked_to_stop()) asked_to_stop = Clock::now();
    if (asked_to_stop && Clock::now() - *asked_to_stop > std::chrono::seconds(2)) ::kill(-pid, SIGKILL);
    auto fds = o.poll_set();
    // Wake up now and then even with open pipes: the child may exit while a descendant it left
    // behind still holds them.
    ::poll(fds.data(), 2, static_cast<int>(std::min<long long>(left.count(), 20)));
    o.read_ready(fds, r, options.max_output);
    exited = has_exited(pid, false);
  }
}

// Drains what the pipes still hold; the writers are dead, so this ends quickly.
void drain(ChildOutput& o, ProcessResult& r, std::size_t cap) {
  for (int rounds = 0; (o.out_open || o.err_open) && rounds < 200; ++rounds) {
    auto fds = o.poll_set();
    if (::poll(fds.data(), 2, 10) <= 0) continue;
    o.read_ready(fds, r, cap);
  }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult r;
  if (argv.empty()) {
    r.spawn_error = "empty command";
    return r;
  }
  ChildOutput o;
  if (!o.out.open() || !o.err.open()) {
    r.spawn_error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }

  std::vector<std::string> args = argv, env = child_environment(options);
  std::vector<char*> cargs = c_strings(args), cenv = c_strings(env);
  const auto start = Clock::now();
  pid_t pid = -1;
  const int rc = spawn_in_own_group(pid, cargs, cenv, o.out.fd[1], o.err.fd[1]);
  if (rc != 0) {
    r.spawn_error = "cannot run '" + argv[0] + "': " + std::strerror(rc);
    return r;
  }
  r.started = true;
  // SIGINT/SIGTERM inside an InterruptScope stop the child's group (interrupt.hpp).
  std::optional<InterruptibleChild> interruptible(std::in_place, pid);
  o.out.close_end(1);
  o.err.close_end(1);

  read_until_exit(pid, o, r, options, start, *interruptible);
  has_exited(pid, true);
  ::kill(-pid, SIGKILL);  // descendants left behind (the child itself is an unreaped zombie)
  drain(o, r, options.max_output);

  interruptible.reset();  // before reaping: then the group id may be reused
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

std::string find_program(const std::string& program) {
  auto executable = [](const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (program.find('/') != std::string::npos) {
    if (!executable(program)) return "";
    char* real = ::realpath(program.c_str(), nullptr);
    std::string out = real ? real : program;
    std::free(real);
    return out;
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    auto colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + program;
    if (executable(candidate)) return candidate;
    if (colon == std::string_view::npos) return "";
    dirs.remove_prefix(colon + 1);
  }
}

}  // namespace attune::runtime
