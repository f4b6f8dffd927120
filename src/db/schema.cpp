#include "db/schema.hpp"

#include <sqlite3.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "db/sqlite.hpp"
#include "ir/error.hpp"

namespace attune::db {

namespace fs = std::filesystem;

namespace {

// Version 1, whole. A change to the tables is a new kDbSchemaVersion and its migration below;
// this text stays as it is, so that every older file and every new one reach the same schema
// through the same steps.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE tasks (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  spec       TEXT NOT NULL,
  target     TEXT NOT NULL,
  hash       TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
);
CREATE TABLE records (
  id              INTEGER PRIMARY KEY,
  task_id         INTEGER NOT NULL REFERENCES tasks(id),
  trace           TEXT NOT NULL,
  trace_hash      TEXT NOT NULL,
  status          TEXT NOT NULL,
  error           TEXT NOT NULL,
  times_s         TEXT NOT NULL,
  median_s        REAL,
  max_rel_error   REAL,
  compile_s       REAL,
  features        TEXT NOT NULL,
  hidden_features TEXT NOT NULL,
  compiler        TEXT NOT NULL,
  flags           TEXT NOT NULL,
  strategy        TEXT NOT NULL,
  seed            INTEGER NOT NULL,
  trial           INTEGER NOT NULL,
  created_at      TEXT NOT NULL
);
CREATE INDEX records_by_trace ON records(task_id, trace_hash);
CREATE INDEX records_by_time ON records(task_id, status, median_s);
CREATE TABLE models (
  id         INTEGER PRIMARY KEY,
  target     TEXT NOT NULL,
  kind       TEXT NOT NULL,
  blob       BLOB NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX models_by_kind ON models(target, kind);
)sql";

// kMigrations[v - 2] turns version v - 1 into version v.
constexpr const char* kMigrations[] = {
    // 2: claims. A tuning run claims a trial number for a trace before it builds and measures
    // it, so that concurrent runs on one task share its budget, never measure one trace twice
    // and never number two trials alike (claims.cpp). A claim lives until its record is
    // inserted or its run releases it or dies.
    R"sql(
CREATE TABLE claims (
  task_id    INTEGER NOT NULL REFERENCES tasks(id),
  trace_hash TEXT NOT NULL,
  trial      INTEGER NOT NULL,
  owner      TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (task_id, trace_hash)
);
CREATE INDEX claims_by_owner ON claims(owner);
)sql",
    // 3: jobs, the queue of distributed measurement (queue.cpp). The search side enqueues the
    // traces it has claimed; workers on other machines take them under a lease (lease_until,
    // milliseconds since 1970 by the database's clock), and end each with exactly one record.
    R"sql(
CREATE TABLE jobs (
  id          INTEGER PRIMARY KEY,
  task_id     INTEGER NOT NULL REFERENCES tasks(id),
  trace_hash  TEXT NOT NULL,
  device_key  TEXT NOT NULL,
  request     TEXT NOT NULL,
  state       TEXT NOT NULL,
  lease_owner TEXT NOT NULL,
  lease_until INTEGER NOT NULL,
  attempts    INTEGER NOT NULL,
  record_id   INTEGER REFERENCES records(id),
  created_at  TEXT NOT NULL
);
CREATE INDEX jobs_by_state ON jobs(state, device_key, id);
)sql",
    // 4: runs. Each tuning run notes the command that started it, the attune that ran it and the
    // machine, so that `attune report` can say what produced the records. Records do not point
    // at their run: a run's records are those of its tasks created after it started.
    R"sql(
CREATE TABLE runs (
  id         INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  command    TEXT NOT NULL,
  attune     TEXT NOT NULL,
  machine    TEXT NOT NULL
);
)sql",
};
static_assert(std::size(kMigrations) == kDbSchemaVersion - 1, "one migration per version after the first");

// SQLite's name for a private in-memory database: handy for tests of later stages.
constexpr const char* kInMemory = ":memory:";

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw Error(path + ": " + what); }

[[noreturn]] void not_attune(const std::string& path, const std::string& why) {
  fail(path, "not an attune database (" + why + ")");
}

std::string errno_text(int e) {
  switch (e) {
    case EACCES:
    case EPERM: return "permission denied";
    case EROFS: return "read-only file system";
    default: return std::strerror(e);
  }
}

// Checks what the file system alone can tell, so SQLite never opens something hopeless:
// existence, directory, permissions, and the 16-byte SQLite header.
void precheck(const std::string& path, OpenMode mode) {
  if (path.empty()) throw Error("database path is empty");
  if (path == kInMemory) {
    if (mode == OpenMode::read_only) fail(path, "no database at " + path);
    return;
  }
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (!fs::exists(st)) {
    if (mode == OpenMode::read_only) fail(path, "no database at " + path);
    fs::path parent = fs::path(path).parent_path();
    if (parent.empty()) parent = ".";
    auto pst = fs::status(parent, ec);
    if (!fs::exists(pst)) fail(path, "cannot create: directory " + parent.string() + " does not exist");
    if (!fs::is_directory(pst)) fail(path, "cannot create: " + parent.string() + " is not a directory");
    if (::access(parent.c_str(), W_OK) != 0) fail(path, "cannot create: " + errno_text(errno));
    return;
  }
  if (fs::is_directory(st)) fail(path, "cannot open: is a directory");

  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open: " + errno_text(errno));
  char header[16] = {};
  ssize_t n = ::read(fd, header, sizeof header);
  ::close(fd);
  if (n < 0) fail(path, "cannot read: " + errno_text(errno));
  // An empty file is an empty database to SQLite too; anything else must carry the header.
  if (n > 0 && (n < 16 || std::memcmp(header, "SQLite format 3", 16) != 0)) not_attune(path, "file is not a database");
  if (mode == OpenMode::read_write_create && ::access(path.c_str(), W_OK) != 0)
    fail(path, "cannot open for writing: " + errno_text(errno));
}

// SQLite's URI for a path: "file:" and the path with '%', '?' and '#' percent-encoded.
std::string file_uri(const std::string& path) {
  std::string out = "file:";
  for (char c : path) {
    if (c == '%')
      out += "%25";
    else if (c == '?')
      out += "%3f";
    else if (c == '#')
      out += "%23";
    else
      out += c;
  }
  return out;
}

// A reader of a WAL database needs its -shm file, and creates it when missing; where the
// directory cannot be written (a read-only mount, or someone else's folder) that fails with
// "attempt to write a readonly database". Such a file is opened immutable instead: SQLite then
// reads the database file alone, which holds every committed record once the last writer has
// closed (its checkpoint empties the -wal). A -wal that still holds changes cannot be read
// that way: that is an error, not a silently older view.
std::string read_only_open_name(const std::string& path) {
  if (path == kInMemory) return "";
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  std::error_code ec;
  const bool dir_writable = ::access(parent.c_str(), W_OK) == 0;
  if (dir_writable || fs::exists(path + "-shm", ec)) return "";
  const auto wal = fs::file_size(path + "-wal", ec);
  if (!ec && wal > 0)
    fail(path, "cannot read: its write-ahead log " + path +
                   "-wal holds changes, and its directory is read-only (open "
                   "it once where the directory is writable, or copy the files)");
  return file_uri(path) + "?immutable=1";
}

struct Contents {
  std::vector<std::string> tables;
  bool has_meta = false;
};

// The first real read of the file; SQLite reports garbage pages here.
Contents list_tables(SqliteConnection& c) {
  sqlite3_stmt* st = nullptr;
  const char* sql = "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name";
  int rc = sqlite3_prepare_v2(c.get(), sql, -1, &st, nullptr);
  Contents out;
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      std::string name = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      if (name == "meta") out.has_meta = true;
      out.tables.push_back(std::move(name));
    }
  }
  std::string msg = sqlite3_errmsg(c.get());
  sqlite3_finalize(st);
  if (rc == SQLITE_DONE) return out;
  int primary = rc & 0xff;
  if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT) not_attune(c.path(), msg);
  if (primary == SQLITE_CANTOPEN || primary == SQLITE_PERM || primary == SQLITE_AUTH)
    fail(c.path(), "cannot open: " + msg);
  fail(c.path(), "cannot read: " + msg);
}

// Refuses anything but an attune database of a version this build reads; returns the version.
int verify_attune(SqliteConnection& c, const Contents& t) {
  if (!t.has_meta) {
    std::string names;
    for (const auto& n : t.tables) names += (names.empty() ? "" : ", ") + n;
    not_attune(c.path(), "it has tables " + names + " and no attune meta table");
  }
  return stored_schema_version(c);
}

void quick_check(SqliteConnection& c) {
  sqlite3_stmt* st = nullptr;
  int rc = sqlite3_prepare_v2(c.get(), "PRAGMA quick_check", -1, &st, nullptr);
  std::string first;
  if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
    first = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  std::string msg = sqlite3_errmsg(c.get());
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) fail(c.path(), "database is corrupt (" + msg + ")");
  if (first != "ok") fail(c.path(), "database is corrupt (quick_check: " + first + ")");
}

// Brings a database of version `from` to kDbSchemaVersion, inside the caller's transaction.
void migrate(Connection& c, int from) {
  for (int v = from + 1; v <= kDbSchemaVersion; ++v) c.exec(kMigrations[v - 2]);
  Statement st(c, "UPDATE meta SET value = ?1 WHERE key = 'schema_version'");
  st.bind(1, std::string_view(std::to_string(kDbSchemaVersion))).run();
}

void create_schema(Connection& c) {
  c.exec(kSchemaV1);
  Statement st(c, "INSERT INTO meta(key, value) VALUES ('schema_version', '1')");
  st.run();
  migrate(c, 1);
}

}  // namespace

std::unique_ptr<Connection> open_checked(const std::string& path, OpenMode mode) {
  precheck(path, mode);
  const bool rw = mode == OpenMode::read_write_create;
  int flags = rw ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  const std::string open_as = rw ? "" : read_only_open_name(path);
  if (!open_as.empty()) flags |= SQLITE_OPEN_URI;
  auto c = std::make_unique<SqliteConnection>(path, flags, open_as);
  if (rw && sqlite3_db_readonly(c->get(), "main") == 1) fail(path, "cannot open for writing: permission denied");

  // Everything up to here only read the file.
  Contents t = list_tables(*c);
  if (t.tables.empty() && !rw) not_attune(path, "it is empty");
  int version = 0;
  if (!t.tables.empty()) {
    version = verify_attune(*c, t);
    quick_check(*c);
  }
  // Read-only, an older version reads as it is: its readers need nothing the migrations add.
  if (!rw) {
    c->exec("PRAGMA query_only = ON");
    return c;
  }

  // Ours (or empty): now writes are allowed. WAL + FULL sync makes every committed insert
  // survive a killed process (and a power loss); foreign keys catch a bad task_id.
  if (path != kInMemory) {
    Statement st(*c, "PRAGMA journal_mode = WAL");
    if (!st.step() || st.text(0) != "wal") fail(path, "cannot switch to WAL journal mode");
  }
  c->exec("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON");
  if (version < kDbSchemaVersion) {
    // Another process may have created or migrated the schema since we looked: decide under
    // the write lock.
    Transaction tx(*c);
    Contents again = list_tables(*c);
    if (again.tables.empty())
      create_schema(*c);
    else if (const int now = verify_attune(*c, again); now < kDbSchemaVersion)
      migrate(*c, now);
    tx.commit();
  }
  return c;
}

int stored_schema_version(Connection& c) {
  Statement st(c, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (!st.step()) not_attune(c.path(), "its meta table has no schema_version");
  const std::string v = st.text(0);
  for (int known = 1; known <= kDbSchemaVersion; ++known)
    if (v == std::to_string(known)) return known;
  fail(c.path(),
       "unsupported schema_version " + v + " (this attune reads 1 to " + std::to_string(kDbSchemaVersion) + ")");
}

}  // namespace attune::db
