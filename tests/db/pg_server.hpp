// pg_server.hpp — a private PostgreSQL server for the tests of the shared database.
//
// PgServer::shared() starts one server per test program, on first use: initdb into a fresh
// directory under TMPDIR, then `postgres` listening only on a unix socket in that directory
// (no TCP port, so test programs never collide). It stops when the program exits normally; a
// test program that crashes takes the server with it (the server is its child, with a
// parent-death signal), and the directory goes with the server's stop. As root (CI) the server
// runs as 'nobody': PostgreSQL refuses to run as root.
//
// Authentication: the superuser `attune` connects without a password (trust); the role
// `pwuser` must give the password "right" (scram-sha-256), for the tests of a refused password.
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace attune::testing {

class PgServer {
 public:
  static PgServer& shared() {
    static PgServer server;
    return server;
  }

  // postgresql:// URL of database `db` on this server, through its socket.
  std::string url(const std::string& db, const std::string& user = "attune", const std::string& password = "") const {
    return "postgresql://" + user + (password.empty() ? "" : ":" + password) + "@/" + db + "?host=" + dir_ +
           "&port=" + std::to_string(kPort);
  }
  // A new, empty database; its URL.
  std::string new_database() {
    const std::string name = "t" + std::to_string(++databases_);
    admin("CREATE DATABASE " + name);
    return url(name);
  }
  // Runs SQL as the superuser on database `db` (test set-up: roles, raw rows).
  void admin(const std::string& sql, const std::string& db = "postgres") const {
    PGconn* c = PQconnectdb(url(db).c_str());
    if (PQstatus(c) != CONNECTION_OK) {
      const std::string msg = PQerrorMessage(c);
      PQfinish(c);
      throw std::runtime_error("test server: " + msg);
    }
    PGresult* r = PQexec(c, sql.c_str());
    const auto st = PQresultStatus(r);
    const std::string msg = PQresultErrorMessage(r);
    PQclear(r);
    PQfinish(c);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) throw std::runtime_error("test server: " + sql + ": " + msg);
  }
  const std::string& dir() const { return dir_; }

  // Stopping and starting again (a server restarted under load).
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGINT);  // fast shutdown: open transactions roll back, connections end
    for (int i = 0; i < 600; ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = 0;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = 0;
  }
  void start() {
    if (pid_ > 0) return;
    pid_ = spawn({bin("postgres"), "-D", dir_ + "/data", "-k", dir_, "-p", std::to_string(kPort), "-c",
                  "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                  "-c", "max_connections=60", "-c", "shared_buffers=16MB"},
                 dir_ + "/server.log", true);
    for (int i = 0; i < 600; ++i) {
      if (PQping(url("postgres").c_str()) == PQPING_OK) return;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = 0;
        throw std::runtime_error("test server: postgres exited; see " + dir_ + "/server.log");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    throw std::runtime_error("test server: postgres did not answer within 30 s");
  }

  ~PgServer() {
    stop();
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

 private:
  static constexpr int kPort = 5432;  // only names the socket file, in a directory of our own
  static constexpr uid_t kNobody = 65534;

  PgServer() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "attune-pg-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    if (::geteuid() == 0 && ::chown(dir_.c_str(), kNobody, kNobody) != 0)
      throw std::runtime_error("cannot chown " + dir_);
    const pid_t init = spawn({bin("initdb"), "-D", dir_ + "/data", "-U", "attune", "-A", "trust", "-E", "UTF8",
                              "--locale=C", "--no-sync", "--no-instructions"},
                             dir_ + "/initdb.log", false);
    int status = 0;
    ::waitpid(init, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw std::runtime_error("test server: initdb failed; see " + dir_ + "/initdb.log");
    {
      std::ofstream hba(dir_ + "/data/pg_hba.conf", std::ios::trunc);
      hba << "local all pwuser scram-sha-256\nlocal all all trust\n";
    }
    start();
    admin("CREATE ROLE pwuser LOGIN PASSWORD 'right'");
  }

  // The PostgreSQL program `name`: $ATTUNE_PG_BIN/name, else the newest Debian install's.
  static std::string bin(const std::string& name) {
    if (const char* d = std::getenv("ATTUNE_PG_BIN")) return std::string(d) + "/" + name;
    std::string best;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
      const std::string p = e.path().string() + "/bin/" + name;
      if (std::filesystem::exists(p, ec) && (best.empty() || p > best)) best = p;
    }
    if (best.empty()) throw std::runtime_error("test server: no PostgreSQL " + name + " (install postgresql)");
    return best;
  }

  // Runs argv as the server's user (nobody when we are root), output to `log`. Everything the
  // child needs is made before fork(): other threads may hold the allocator's lock.
  pid_t spawn(const std::vector<std::string>& argv, const std::string& log, bool die_with_parent) const {
    const pid_t parent = ::getpid();
    const std::string hba = dir_ + "/data/pg_hba.conf";
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const bool root = ::geteuid() == 0;
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    if (root) {
      if (fd >= 0 && ::fchown(fd, kNobody, kNobody) != 0) ::_exit(126);
      if (die_with_parent && ::chown(hba.c_str(), kNobody, kNobody) != 0) ::_exit(126);
      if (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0) ::_exit(126);
    }
    // After the change of user, which clears it.
    if (die_with_parent && (::prctl(PR_SET_PDEATHSIG, SIGQUIT) != 0 || ::getppid() != parent)) ::_exit(126);
    ::execv(args[0], args.data());
    ::_exit(127);
  }

  std::string dir_;
  pid_t pid_ = 0;
  int databases_ = 0;
};

}  // namespace attune::testing
