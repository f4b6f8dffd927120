// Database: opening, tasks and cost-model blobs. Records live in records.cpp, export in
// export.cpp, the safe-open checks in schema.cpp.
#include <chrono>
#include <ctime>

#include "db/impl.hpp"
#include "db/postgres.hpp"
#include "db/schema.hpp"
#include "ir/error.hpp"

namespace attune {

using db::Statement;

void Database::Impl::require_writable(const char* what) const {
  if (read_only) throw Error(path() + ": opened read-only, cannot " + what);
}

Database Database::open(const std::string& path, OpenMode mode) {
  auto impl = std::make_unique<Impl>();
  impl->conn = db::is_postgres_url(path) ? db::open_postgres(path, mode) : db::open_checked(path, mode);
  impl->read_only = mode == OpenMode::read_only;
  return Database(std::move(impl));
}

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;
Database::~Database() = default;

const std::string& Database::path() const { return impl_->path(); }
bool Database::read_only() const { return impl_->read_only; }

std::string Database::role() const {
  if (impl_->c().backend() != db::Backend::postgres) return "";
  db::Statement st(impl_->c(), "SELECT current_user");
  ATTUNE_CHECK(st.step(), "SELECT current_user returns a row");
  std::string r = st.text(0);
  st.run();
  return r;
}

// ---- tasks --------------------------------------------------------------------------------

namespace {

constexpr const char* kTaskColumns = "id, name, spec, target, hash, created_at";

TaskInfo read_task(const Statement& st) {
  return TaskInfo{st.int64(0), st.text(1), st.text(2), st.text(3), st.text(4), st.text(5)};
}

std::optional<TaskInfo> task_by_hash(db::Connection& c, const std::string& hash) {
  Statement st(c, (std::string("SELECT ") + kTaskColumns + " FROM tasks WHERE hash = ?1").c_str());
  st.bind(1, std::string_view(hash));
  if (!st.step()) return std::nullopt;
  return read_task(st);
}

}  // namespace

TaskInfo Database::get_or_create_task(const std::string& name, const std::string& spec, const std::string& target) {
  std::string hash = task_hash(spec, target);
  if (auto t = task_by_hash(impl_->c(), hash)) return *t;
  impl_->require_writable("create a task");
  // DO NOTHING: another process may have created the same task in between; its row wins.
  Statement st(impl_->c(),
               "INSERT INTO tasks(name, spec, target, hash, created_at) "
               "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING");
  st.bind(1, std::string_view(name)).bind(2, std::string_view(spec));
  st.bind(3, std::string_view(target)).bind(4, std::string_view(hash));
  st.bind(5, std::string_view(utc_now_iso8601())).run();
  auto t = task_by_hash(impl_->c(), hash);
  ATTUNE_CHECK(t.has_value(), "task row missing right after insert");
  return *t;
}

std::optional<TaskInfo> Database::find_task(const std::string& spec, const std::string& target) const {
  return task_by_hash(impl_->c(), task_hash(spec, target));
}

std::optional<TaskInfo> Database::task(std::int64_t task_id) const {
  Statement st(impl_->c(), (std::string("SELECT ") + kTaskColumns + " FROM tasks WHERE id = ?1").c_str());
  st.bind(1, task_id);
  if (!st.step()) return std::nullopt;
  return read_task(st);
}

std::vector<TaskInfo> Database::tasks() const {
  Statement st(impl_->c(), (std::string("SELECT ") + kTaskColumns + " FROM tasks ORDER BY id").c_str());
  std::vector<TaskInfo> out;
  while (st.step()) out.push_back(read_task(st));
  return out;
}

// ---- cost models --------------------------------------------------------------------------

std::int64_t Database::add_run(const RunInfo& run) {
  impl_->require_writable("note a run");
  Statement st(impl_->c(),
               "INSERT INTO runs(started_at, command, attune, machine) VALUES (?1, ?2, ?3, ?4) RETURNING id");
  const std::string at = run.started_at.empty() ? utc_now_iso8601() : run.started_at;
  st.bind(1, std::string_view(at)).bind(2, std::string_view(run.command));
  st.bind(3, std::string_view(run.attune)).bind(4, std::string_view(run.machine));
  ATTUNE_CHECK(st.step(), "INSERT ... RETURNING returns the row");
  return st.int64(0);
}

std::vector<RunInfo> Database::runs() const {
  std::vector<RunInfo> out;
  // A file of an older schema opened read-only has no runs table (either backend).
  if (db::stored_schema_version(impl_->c()) < 4) return out;
  Statement st(impl_->c(), "SELECT id, started_at, command, attune, machine FROM runs ORDER BY id");
  while (st.step()) out.push_back({st.int64(0), st.text(1), st.text(2), st.text(3), st.text(4)});
  return out;
}

std::int64_t Database::save_model(const std::string& target, const std::string& kind, const std::string& blob) {
  impl_->require_writable("save a model");
  Statement st(impl_->c(), "INSERT INTO models(target, kind, blob, created_at) VALUES (?1, ?2, ?3, ?4) RETURNING id");
  st.bind(1, std::string_view(target)).bind(2, std::string_view(kind));
  st.bind_blob(3, blob).bind(4, std::string_view(utc_now_iso8601()));
  ATTUNE_CHECK(st.step(), "INSERT ... RETURNING returns the row");
  return st.int64(0);
}

std::optional<ModelBlob> Database::latest_model(const std::string& target, const std::string& kind) const {
  Statement st(impl_->c(),
               "SELECT id, target, kind, blob, created_at FROM models "
               "WHERE target = ?1 AND kind = ?2 ORDER BY id DESC LIMIT 1");
  st.bind(1, std::string_view(target)).bind(2, std::string_view(kind));
  if (!st.step()) return std::nullopt;
  return ModelBlob{st.int64(0), st.text(1), st.text(2), st.blob(3), st.text(4)};
}

std::vector<ModelBlob> Database::models() const {
  Statement st(impl_->c(), "SELECT id, target, kind, blob, created_at FROM models ORDER BY id");
  std::vector<ModelBlob> out;
  while (st.step()) out.push_back(ModelBlob{st.int64(0), st.text(1), st.text(2), st.blob(3), st.text(4)});
  return out;
}

std::string database_display_name(const std::string& path_or_url) {
  return db::is_postgres_url(path_or_url) ? db::redact_url(path_or_url) : path_or_url;
}

// ---- time ---------------------------------------------------------------------------------

std::string utc_now_iso8601() {
  using namespace std::chrono;
  auto now = system_clock::now();
  std::time_t secs = system_clock::to_time_t(now);
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace attune
