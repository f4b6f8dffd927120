// runtime/interrupt.hpp — SIGINT and SIGTERM during a long command: stop cleanly, not abruptly
// (runtime stage).
//
// A command that knows how to stop early (attune tune, attune verify) holds an InterruptScope
// while it works. Inside it, SIGINT and SIGTERM do not end the process: the handler records
// the signal (an atomic flag, then one byte into a self-pipe: both async-signal-safe) and a
// watcher thread, woken by the pipe, kills the process groups of the children running at that
// moment (run_process registers each child it starts) with SIGTERM, so the attune-worker
// measuring a candidate and any compiler end at once instead of running to their limits
// (SIGTERM rather than SIGKILL: the compiler driver then deletes its temporary files; a child
// still running 2 s later gets SIGKILL). The work stops
// at its next check of interrupted(): the tuning engine abandons the batch in flight (a result
// from a killed child is never recorded), keeps every record it had committed, and the command
// prints its summary, its temporary directories are removed by their owners' destructors, and
// it exits with 128 + the signal (130 for SIGINT, 143 for SIGTERM), as a shell reports a
// process that signal ended. A second signal ends the process at once by its default action.
//
// Outside a scope, signals keep whatever action the program gave them and interrupted() is 0:
// the library (the C++ API included) never installs handlers of its own.
// Tests: tests/runtime/interrupt_test.cpp, tests/cli/signal_test.sh.
#pragma once

#include <sys/types.h>

#include <string>

namespace attune {

class InterruptScope {
 public:
  // Installs the handlers and starts the watcher; clears an earlier scope's signal. Throws
  // InternalError when a scope is already held (one at a time, per process).
  InterruptScope();
  // Restores the previous handlers and stops the watcher. interrupted() keeps its value.
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// The signal (SIGINT or SIGTERM) that interrupted the current or last scope; 0 when none did.
int interrupted();
// The exit status for a command stopped by `sig`: 128 + sig.
inline int interrupted_exit_code(int sig) { return 128 + sig; }
// "SIGINT", "SIGSEGV", ...; "signal N" for ones without a name here.
std::string signal_name(int sig);

// For run_process: while registered, a child's process group is sent SIGTERM by an interrupt.
// Registering after the interrupt sends it at once, so no child outlives the flag unasked.
class InterruptibleChild {
 public:
  explicit InterruptibleChild(pid_t pgid);
  ~InterruptibleChild();
  // Whether the scope's signal has come: the child was asked to stop (run_process escalates
  // to SIGKILL when it does not).
  bool asked_to_stop() const;
  InterruptibleChild(const InterruptibleChild&) = delete;
  InterruptibleChild& operator=(const InterruptibleChild&) = delete;

 private:
  pid_t pgid_;
};

}  // namespace attune
