// InterruptScope: SIGINT/SIGTERM set the flag instead of ending the process, stop the children
// run_process has running (SIGTERM, then SIGKILL for one that ignores it), and a second signal
// ends the process as if no scope were held.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "kernels.hpp"
#include "runtime/interrupt.hpp"
#include "runtime/subprocess.hpp"

namespace attune::test {
namespace {

TEST(Interrupt, ASignalInAScopeSetsTheFlagAndTheScopeRestoresTheHandler) {
  struct sigaction before = {};
  ::sigaction(SIGTERM, nullptr, &before);
  {
    InterruptScope scope;
    EXPECT_EQ(interrupted(), 0);
    ::raise(SIGTERM);  // the handler runs before raise returns
    EXPECT_EQ(interrupted(), SIGTERM);
    EXPECT_EQ(interrupted_exit_code(interrupted()), 143);
  }
  EXPECT_EQ(interrupted(), SIGTERM);  // kept for the command to report
  struct sigaction after = {};
  ::sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
  InterruptScope next;  // a new scope starts clear
  EXPECT_EQ(interrupted(), 0);
}

// Runs `script` in a thread, raises `sig` once it has created the file $STARTED, and returns
// the result.
runtime::ProcessResult interrupt_once_started(const std::string& script, int sig) {
  ScratchDir dir;
  const std::string started = dir.path() + "/started";
  runtime::ProcessResult r;
  std::thread run([&] {
    runtime::ProcessOptions o;
    o.timeout_s = 300;
    o.env = {{"STARTED", started}};
    r = runtime::run_process({"sh", "-c", script}, o);
  });
  while (!std::filesystem::exists(started)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::raise(sig);
  run.join();
  return r;
}

TEST(Interrupt, StopsTheRunningChild) {
  InterruptScope scope;
  const runtime::ProcessResult r = interrupt_once_started("touch \"$STARTED\" && exec sleep 300", SIGINT);
  EXPECT_TRUE(r.started);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.signal, SIGTERM);
  EXPECT_EQ(interrupted(), SIGINT);
}

TEST(Interrupt, AChildThatIgnoresSigtermIsKilled) {
  InterruptScope scope;
  const runtime::ProcessResult r = interrupt_once_started("trap '' TERM; touch \"$STARTED\"; sleep 300 & wait", SIGINT);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
}

TEST(Interrupt, AChildStartedAfterTheSignalIsStoppedAtOnce) {
  InterruptScope scope;
  ::raise(SIGINT);
  runtime::ProcessOptions o;
  o.timeout_s = 300;
  const runtime::ProcessResult r = runtime::run_process({"sleep", "300"}, o);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.signal, SIGTERM);
}

TEST(Interrupt, ASecondSignalEndsTheProcess) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    InterruptScope scope;
    ::raise(SIGINT);
    ::raise(SIGINT);  // the user insists
    ::_exit(0);       // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGINT);
}

TEST(Interrupt, OutsideAScopeNoChildIsStopped) {
  runtime::ProcessOptions o;
  const runtime::ProcessResult r = runtime::run_process({"true"}, o);
  EXPECT_TRUE(r.exited_ok());
}

}  // namespace
}  // namespace attune::test
