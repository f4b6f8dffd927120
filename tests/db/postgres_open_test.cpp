// Opening a PostgreSQL database: what schema.cpp's checks are for a file, for a server (a
// database that is not attune's is refused untouched), and the connection errors, one line
// each, naming the URL without its password.
#include <string>

#include "db/postgres.hpp"
#include "db_test_util.hpp"
#include "ir/error.hpp"

namespace attune {
namespace {

using testing::PgServer;

std::string open_error(const std::string& url, OpenMode mode = OpenMode::read_write_create) {
  try {
    Database::open(url, mode);
  } catch (const Error& e) {
    return e.what();
  }
  return "(opened)";
}

TEST(DbPostgresOpen, RedactsThePasswordOfAUrl) {
  EXPECT_EQ(db::redact_url("postgresql://u:secret@host:5432/db"), "postgresql://u@host:5432/db");
  EXPECT_EQ(db::redact_url("postgresql://u@host/db?password=secret&sslmode=require"),
            "postgresql://u@host/db?sslmode=require");
  EXPECT_EQ(db::redact_url("postgres://host/db?sslmode=require&password=x"), "postgres://host/db?sslmode=require");
  EXPECT_EQ(db::redact_url("postgresql://host/db"), "postgresql://host/db");
  EXPECT_EQ(db::postgres_placeholders("SELECT ?1, '?2' FROM t WHERE a = ?12"), "SELECT $1, '?2' FROM t WHERE a = $12");
}

TEST(DbPostgresOpen, BadConnectionStringsAreOneLineErrors) {
  const std::string bad = "postgresql://u:secret@/db?nonsense=1";
  const std::string msg = open_error(bad);
  EXPECT_EQ(msg.rfind("postgresql://u@/db?nonsense=1: invalid connection string: ", 0), 0u) << msg;
  EXPECT_EQ(msg.find("secret"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;

  // A password in the URL is refused before anything is sent: it would show in `ps`.
  const std::string with_password = "postgresql://u:secret@/db?host=/tmp";
  EXPECT_EQ(open_error(with_password),
            "postgresql://u@/db?host=/tmp: a password in the URL would show in process lists and logs: give it "
            "in PGPASSWORD or ~/.pgpass");

  // No server behind the socket: the server is down or the URL points elsewhere.
  const std::string down = "postgresql://attune@/db?host=/nonexistent-attune-dir&port=5432";
  const std::string why = open_error(down);
  EXPECT_EQ(why.rfind("postgresql://attune@/db?host=/nonexistent-attune-dir&port=5432: cannot connect: ", 0), 0u)
      << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

TEST(DbPostgresOpen, ARefusedPasswordIsAOneLineErrorThatNeverShowsIt) {
  PgServer& server = PgServer::shared();
  const std::string url = server.url("postgres", "pwuser");
  ::setenv("PGPASSWORD", "wrong-secret", 1);
  const std::string msg = open_error(url);
  ::unsetenv("PGPASSWORD");
  EXPECT_EQ(msg.rfind(url + ": cannot connect: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("password authentication failed"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("wrong-secret"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST(DbPostgresOpen, ADatabaseThatIsNotAttunesIsRefusedUntouched) {
  PgServer& server = PgServer::shared();
  const std::string url = server.new_database();
  const std::string name = url.substr(url.find("@/") + 2, url.find('?') - url.find("@/") - 2);
  server.admin("CREATE TABLE accounts(id INT); INSERT INTO accounts VALUES (7)", name);
  EXPECT_EQ(open_error(url), url + ": not an attune database (it has tables accounts and no attune meta table)");
  EXPECT_EQ(open_error(url, OpenMode::read_only),
            url + ": not an attune database (it has tables accounts and no attune meta table)");
  server.admin("DROP TABLE accounts", name);  // fails if the open created anything beside it

  const std::string empty = server.new_database();
  EXPECT_EQ(open_error(empty, OpenMode::read_only), empty + ": not an attune database (it is empty)");
}

TEST(DbPostgresOpen, AnUnknownSchemaVersionIsRefused) {
  PgServer& server = PgServer::shared();
  const std::string url = server.new_database();
  Database::open(url);
  const std::string name = url.substr(url.find("@/") + 2, url.find('?') - url.find("@/") - 2);
  server.admin("UPDATE meta SET value = '99' WHERE key = 'schema_version'", name);
  EXPECT_EQ(open_error(url),
            url + ": unsupported schema_version 99 (this attune reads 1 to " + std::to_string(kDbSchemaVersion) + ")");
}

TEST(DbPostgresOpen, APasswordFromTheEnvironmentIsUsed) {
  PgServer& server = PgServer::shared();
  server.admin("CREATE DATABASE owned_by_pwuser OWNER pwuser");
  ::setenv("PGPASSWORD", "right", 1);
  auto db = Database::open(server.url("owned_by_pwuser", "pwuser"), OpenMode::read_write_create);
  ::unsetenv("PGPASSWORD");
  EXPECT_TRUE(db.tasks().empty());
}

}  // namespace
}  // namespace attune
