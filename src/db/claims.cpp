// Database claims: concurrent tuning runs of one task share its budget (db.hpp).
//
// A claim names its owner "HOST/PID/START/N": the machine, the process and its start time
// (so that a reused pid does not keep a dead run's claims alive) and a number unique in the
// process. A claim whose owner is gone is dropped by the next claim(): on this machine when
// the process no longer runs, from another machine when it is older than kForeignClaimHours
// (that process cannot be asked; a measurement never takes hours). A claim passed to a job of
// the queue (queue.cpp, owner "job/ID") lasts until the job's record ends it.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <ctime>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <vector>

#include "db/impl.hpp"
#include "ir/error.hpp"

namespace attune {

using db::Statement;

namespace {

constexpr int kForeignClaimHours = 6;

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

// The process's start time (clock ticks after boot, /proc/PID/stat field 22); "" when unknown.
std::string start_time(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t paren = stat.rfind(')');  // the command name may hold spaces and parens
  if (paren == std::string::npos) return "";
  std::istringstream fields(stat.substr(paren + 1));
  std::string f;
  for (int i = 3; i <= 22 && fields >> f; ++i)
    if (i == 22) return f;
  return "";
}

struct Owner {
  std::string host;
  pid_t pid = 0;
  std::string start;
};

std::optional<Owner> parse_owner(const std::string& owner) {
  std::vector<std::string> parts;
  std::istringstream in(owner);
  for (std::string p; std::getline(in, p, '/');) parts.push_back(p);
  if (parts.size() != 4 || parts[1].empty() || parts[1].size() > 9 ||
      parts[1].find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return Owner{parts[0], static_cast<pid_t>(std::stol(parts[1])), parts[2]};
}

// Whether a claim's owner on this machine may still be running; a claim of an owner that
// names another machine (or cannot be read) is judged by its age instead.
bool alive_here(const Owner& o) {
  if (::kill(o.pid, 0) != 0 && errno == ESRCH) return false;
  const std::string now = start_time(o.pid);
  return o.start.empty() || now.empty() || now == o.start;
}

std::string iso8601_hours_ago(int hours) {
  const std::time_t t = std::time(nullptr) - static_cast<std::time_t>(hours) * 3600;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
  return buf;
}

void drop_dead_claims(db::Connection& c, std::int64_t task_id) {
  const std::string here = host_name();
  std::vector<std::string> dead;
  {
    Statement st(c, "SELECT DISTINCT owner FROM claims WHERE task_id = ?1");
    st.bind(1, task_id);
    while (st.step()) {
      const std::string owner = st.text(0);
      const auto o = parse_owner(owner);
      if (o && o->host == here && !alive_here(*o)) dead.push_back(owner);
    }
  }
  for (const auto& owner : dead) {
    Statement st(c, "DELETE FROM claims WHERE owner = ?1");
    st.bind(1, std::string_view(owner)).run();
  }
  // A claim passed to a queued job (owner "job/ID") ends with the job's record, however old.
  Statement old(c, "DELETE FROM claims WHERE task_id = ?1 AND created_at < ?2 AND owner NOT LIKE 'job/%'");
  old.bind(1, task_id).bind(2, std::string_view(iso8601_hours_ago(kForeignClaimHours))).run();
}

}  // namespace

std::string new_claim_owner() {
  static std::atomic<unsigned> counter{0};
  const pid_t pid = ::getpid();
  return host_name() + "/" + std::to_string(pid) + "/" + start_time(pid) + "/" + std::to_string(counter++);
}

namespace db {

std::int64_t next_trial(Connection& c, std::int64_t task_id) {
  Statement st(c,
               "SELECT COALESCE(MAX(trial), -1) + 1 FROM (SELECT trial FROM records WHERE task_id = ?1 "
               "UNION ALL SELECT trial FROM claims WHERE task_id = ?1) AS t");
  st.bind(1, task_id);
  ATTUNE_CHECK(st.step(), "an aggregate query returns one row");
  return st.int64(0);
}

}  // namespace db

Claim Database::claim(std::int64_t task_id, const std::string& trace_hash, const std::string& owner,
                      std::int64_t budget) {
  impl_->require_writable("claim a trial");
  db::Connection& c = impl_->c();
  db::Transaction tx(c);
  drop_dead_claims(c, task_id);
  Claim out;
  {
    Statement st(c, "SELECT 1 FROM records WHERE task_id = ?1 AND trace_hash = ?2 LIMIT 1");
    st.bind(1, task_id).bind(2, std::string_view(trace_hash));
    if (st.step()) out.outcome = Claim::Outcome::measured;
  }
  if (out.granted()) {
    Statement st(c, "SELECT owner, trial FROM claims WHERE task_id = ?1 AND trace_hash = ?2");
    st.bind(1, task_id).bind(2, std::string_view(trace_hash));
    if (st.step()) {
      if (st.text(0) != owner)
        out.outcome = Claim::Outcome::in_flight;
      else
        out.trial = st.int64(1);  // claimed twice by one run: the same claim
    }
  }
  if (out.granted() && out.trial < 0 && budget > 0) {
    Statement st(c,
                 "SELECT (SELECT COUNT(*) FROM records WHERE task_id = ?1 AND strategy != 'confirm') + "
                 "(SELECT COUNT(*) FROM claims WHERE task_id = ?1)");
    st.bind(1, task_id);
    ATTUNE_CHECK(st.step(), "an aggregate query returns one row");
    if (st.int64(0) >= budget) out.outcome = Claim::Outcome::budget_spent;
  }
  if (out.granted() && out.trial < 0) {
    out.trial = db::next_trial(c, task_id);
    Statement st(c, "INSERT INTO claims(task_id, trace_hash, trial, owner, created_at) VALUES (?1, ?2, ?3, ?4, ?5)");
    st.bind(1, task_id).bind(2, std::string_view(trace_hash)).bind(3, out.trial);
    st.bind(4, std::string_view(owner)).bind(5, std::string_view(utc_now_iso8601())).run();
  }
  tx.commit();  // the dead claims dropped above go too, granted or not
  return out;
}

void Database::release_claim(std::int64_t task_id, const std::string& trace_hash, const std::string& owner) {
  impl_->require_writable("release a claim");
  Statement st(impl_->c(), "DELETE FROM claims WHERE task_id = ?1 AND trace_hash = ?2 AND owner = ?3");
  st.bind(1, task_id).bind(2, std::string_view(trace_hash)).bind(3, std::string_view(owner)).run();
}

void Database::release_claims(const std::string& owner) {
  impl_->require_writable("release claims");
  Statement st(impl_->c(), "DELETE FROM claims WHERE owner = ?1");
  st.bind(1, std::string_view(owner)).run();
}

std::int64_t Database::claims(std::int64_t task_id) const {
  Statement st(impl_->c(), "SELECT COUNT(*) FROM claims WHERE task_id = ?1");
  st.bind(1, task_id);
  ATTUNE_CHECK(st.step(), "an aggregate query returns one row");
  return st.int64(0);
}

}  // namespace attune
