// runtime/subprocess.hpp — run a program without a shell, with a wall-clock limit.
//
// The child gets its own process group, so a timeout kills everything it started (a compiler's
// cc1 and as, a kernel's helper processes). stdout and stderr are captured through pipes;
// stdin is /dev/null. Inside an InterruptScope (interrupt.hpp) SIGINT/SIGTERM stop the child's
// group. Used by the Builder (compiler) and the Runner (attune-worker).
// Tests: tests/runtime/test_subprocess.cpp.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace attune::runtime {

struct ProcessResult {
  bool started = false;  // false: could not be spawned, see spawn_error
  std::string spawn_error;
  bool timed_out = false;
  int exit_code = -1;    // when it exited normally
  int signal = 0;        // when a signal ended it (SIGKILL after a timeout included)
  std::string out, err;  // captured, each cut at max_output bytes
  double wall_s = 0;
  bool exited_ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
};

struct ProcessOptions {
  double timeout_s = 60;
  std::size_t max_output = 1 << 20;
  // Variables set (or replaced) in the child's copy of this process's environment.
  std::vector<std::pair<std::string, std::string>> env;
};

// argv[0] is looked up in PATH when it has no '/'.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options);

// The absolute path of `program` found through PATH (or itself when it has a '/'); empty when
// no executable file is there.
std::string find_program(const std::string& program);

}  // namespace attune::runtime
