// Crash safety: a writer killed with SIGKILL keeps every record whose insert had returned.
//
// A child process inserts deterministic records one by one and reports each committed index
// through a pipe; the parent kills it once it has heard N reports (so the kill lands during
// later inserts), then reopens the file and checks that the first N or more records are there
// and intact, and that the database still takes writes.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db_test_util.hpp"

namespace attune {
namespace {

// Record i of the child's sequence: a function of i alone, so the parent can recompute it.
Record nth_record(std::int64_t task_id, int i) {
  std::mt19937_64 rng(1000 + static_cast<std::uint64_t>(i));
  return testing::random_record(rng, task_id, i);
}

[[noreturn]] void child_writer(const std::string& path, std::int64_t task_id, int fd) {
  try {
    auto db = Database::open(path, OpenMode::read_write_create);
    for (int i = 0; i < 1000000; ++i) {
      db.insert(nth_record(task_id, i));
      if (::write(fd, &i, sizeof i) != sizeof i) ::_exit(2);
    }
  } catch (...) {
    ::_exit(1);
  }
  ::_exit(0);
}

// Returns how many commits the child reported before it was killed.
int run_and_kill(const std::string& path, std::int64_t task_id, int kill_after) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    child_writer(path, task_id, fds[1]);
  }
  ::close(fds[1]);
  int heard = 0, index = 0;
  while (heard < kill_after && ::read(fds[0], &index, sizeof index) == sizeof index) {
    EXPECT_EQ(index, heard);
    ++heard;
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(fds[0]);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the child ended on its own (status " << status << ") after " << heard << " commits";
  return heard;
}

TEST(DbCrash, SigkillLosesNoCommittedRecord) {
  testing::ScratchDir dir;
  std::mt19937_64 rng(77);
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE(round);
    std::string path = dir.file("crash" + std::to_string(round) + ".db");
    std::int64_t task_id = Database::open(path).get_or_create_task("t", "spec", "x86").id;
    int n = 1 + static_cast<int>(rng() % 60);
    int heard = run_and_kill(path, task_id, n);
    ASSERT_EQ(heard, n);

    // Reopening runs the open-time checks (quick_check included) on the killed writer's file.
    auto db = Database::open(path, OpenMode::read_write_create);
    auto records = db.records(task_id);
    ASSERT_GE(records.size(), static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < records.size(); ++i) {
      SCOPED_TRACE(i);
      testing::expect_same_record(nth_record(task_id, static_cast<int>(i)), records[i]);
    }
    // The file keeps working after the crash.
    db.insert(nth_record(task_id, 12345));
    EXPECT_EQ(db.counts(task_id).trials, static_cast<std::int64_t>(records.size()) + 1);
  }
}

}  // namespace
}  // namespace attune
