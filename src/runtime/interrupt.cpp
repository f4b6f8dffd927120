// InterruptScope and the children it kills (runtime/interrupt.hpp).
//
// The handler may run on any thread at any instruction, so it only touches a lock-free atomic
// and write()s to a pipe. Everything that takes a lock or allocates (the set of children,
// killing them) happens on the watcher thread, which the pipe wakes.
#include "runtime/interrupt.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "ir/error.hpp"

namespace attune {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM};
constexpr char kStopWatcher = 0;  // the byte that ends the watcher (signal numbers are > 0)

std::atomic<int> g_signal{0};
std::atomic<int> g_pipe_write{-1};
std::atomic<bool> g_scope_held{false};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");

std::mutex g_children_mutex;
std::set<pid_t>& children() {
  static std::set<pid_t> pgids;
  return pgids;
}

void kill_children() {
  std::lock_guard lock(g_children_mutex);
  for (pid_t pgid : children()) ::kill(-pgid, SIGTERM);
}

extern "C" void on_signal(int sig) {
  const int saved_errno = errno;
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, sig)) {
    // The second signal: the user insists. End now, as if attune had no handler.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  }
  const char byte = static_cast<char>(sig);
  const int fd = g_pipe_write.load();
  if (fd >= 0) {
    const ssize_t n = ::write(fd, &byte, 1);
    (void)n;  // a full pipe already holds a wake-up for the watcher
  }
  errno = saved_errno;
}

// The self-pipe, made by the first scope and never closed: a handler that loaded its write end
// just before a scope ended must not write into a descriptor that was closed and reused.
const int* signal_pipe() {
  static const int* fds = [] {
    static int p[2] = {-1, -1};
    ATTUNE_CHECK(::pipe2(p, O_CLOEXEC) == 0, "a pipe for the signal handler");
    // The handler must never block on a full pipe; the watcher blocks on an empty one.
    ::fcntl(p[1], F_SETFL, ::fcntl(p[1], F_GETFL) | O_NONBLOCK);
    return p;
  }();
  return fds;
}

void watch(int read_fd) {
  for (;;) {
    char byte = kStopWatcher;
    const ssize_t n = ::read(read_fd, &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || byte == kStopWatcher) return;
    // A byte an earlier scope's signal left behind finds the flag cleared: nothing to stop.
    if (g_signal.load() != 0) kill_children();
  }
}

struct ScopeState {
  struct sigaction previous[2] = {};
  std::thread watcher;
};
ScopeState* g_state = nullptr;

}  // namespace

InterruptScope::InterruptScope() {
  ATTUNE_CHECK(!g_scope_held.exchange(true), "one InterruptScope at a time");
  const int* pipe = signal_pipe();
  g_state = new ScopeState;
  g_signal = 0;
  g_pipe_write = pipe[1];
  g_state->watcher = std::thread(watch, pipe[0]);
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // a signal must not turn a read or a wait into an error
  for (int i = 0; i < 2; ++i) ::sigaction(kSignals[i], &sa, &g_state->previous[i]);
}

InterruptScope::~InterruptScope() {
  for (int i = 0; i < 2; ++i) ::sigaction(kSignals[i], &g_state->previous[i], nullptr);
  g_pipe_write = -1;
  const char stop = kStopWatcher;
  while (::write(signal_pipe()[1], &stop, 1) < 0 && errno == EINTR) {
  }
  g_state->watcher.join();
  delete g_state;
  g_state = nullptr;
  g_scope_held = false;
}

int interrupted() { return g_signal.load(); }

std::string signal_name(int sig) {
  static const std::pair<int, const char*> kNames[] = {
      {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},   {SIGTRAP, "SIGTRAP"},
      {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"},
      {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"}, {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
      {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
  };
  for (const auto& [n, name] : kNames)
    if (n == sig) return name;
  return "signal " + std::to_string(sig);
}

InterruptibleChild::InterruptibleChild(pid_t pgid) : pgid_(pgid) {
  std::lock_guard lock(g_children_mutex);
  children().insert(pgid_);
  if (asked_to_stop()) ::kill(-pgid_, SIGTERM);
}

bool InterruptibleChild::asked_to_stop() const { return g_scope_held && g_signal.load() != 0; }

InterruptibleChild::~InterruptibleChild() {
  std::lock_guard lock(g_children_mutex);
  children().erase(pgid_);
}

}  // namespace attune
