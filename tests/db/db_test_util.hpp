// Helpers shared by the tests of src/db/: scratch directories, file snapshots, random records.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "db/db.hpp"
#include "pg_server.hpp"

namespace attune::testing {

// A fresh directory under TMPDIR, removed with everything in it at scope exit.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "attune-db-XXXXXX").string();
    char* p = ::mkdtemp(tmpl.data());
    if (!p) throw std::runtime_error("mkdtemp failed");
    dir_ = p;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::permissions(dir_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

// Runs SQL on a file with plain SQLite, bypassing attune's checks (a row another program
// wrote, a file of an older schema).
inline void raw_sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}

// A record for `task_id` with every field set from `rng`. Deterministic for a given rng state.
inline Record random_record(std::mt19937_64& rng, std::int64_t task_id, std::int64_t trial) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  Record r;
  r.task_id = task_id;
  nlohmann::json trace = nlohmann::json::array();
  for (int i = 0, n = 1 + pick(4); i < n; ++i)
    trace.push_back({{"split", {{"loop", "k" + std::to_string(pick(9))}, {"factors", {1 + pick(16), 1 + pick(16)}}}}});
  r.trace = trace.dump();
  r.trace_hash = content_hash(r.trace + std::to_string(rng()));
  r.status = static_cast<Status>(pick(6));
  r.error = r.ok() ? "" : "error \"" + std::to_string(rng()) + "\"\nline two \xce\xbb";
  for (int i = 0, n = pick(6); i < n; ++i) r.times_s.push_back(unit(rng) * 1e-3);
  r.median_s = r.ok() ? 1e-6 + unit(rng) * 1e-2 : 0;
  r.max_rel_error = unit(rng) * 1e-5;
  r.compile_s = unit(rng) * 3;
  nlohmann::json f = nlohmann::json::object();
  for (int i = 0, n = pick(5); i < n; ++i) f["f" + std::to_string(i)] = unit(rng) * 100;
  r.features = f;
  r.hidden_features = pick(2) ? nlohmann::json(nullptr) : nlohmann::json{{"regs", pick(256)}, {"spills", pick(3)}};
  r.compiler = "gcc " + std::to_string(10 + pick(4)) + ".2.0";
  r.flags = {"-O3", "-march=native"};
  if (pick(2)) r.flags.push_back("-fopenmp");
  r.strategy = pick(2) ? "random" : "evolutionary";
  r.seed = rng();  // the full 64-bit range, including values above INT64_MAX
  r.trial = trial;
  return r;
}

// Every field except id and created_at (which insert() fills).
inline void expect_same_record(const Record& want, const Record& got) {
  auto same_double = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  EXPECT_EQ(want.task_id, got.task_id);
  EXPECT_EQ(want.trace, got.trace);
  EXPECT_EQ(want.trace_hash, got.trace_hash);
  EXPECT_EQ(want.status, got.status);
  EXPECT_EQ(want.error, got.error);
  ASSERT_EQ(want.times_s.size(), got.times_s.size());
  for (std::size_t i = 0; i < want.times_s.size(); ++i) EXPECT_TRUE(same_double(want.times_s[i], got.times_s[i])) << i;
  EXPECT_TRUE(same_double(want.median_s, got.median_s));
  EXPECT_TRUE(same_double(want.max_rel_error, got.max_rel_error));
  EXPECT_TRUE(same_double(want.compile_s, got.compile_s));
  EXPECT_EQ(want.features, got.features);
  EXPECT_EQ(want.hidden_features, got.hidden_features);
  EXPECT_EQ(want.compiler, got.compiler);
  EXPECT_EQ(want.flags, got.flags);
  EXPECT_EQ(want.strategy, got.strategy);
  EXPECT_EQ(want.seed, got.seed);
  EXPECT_EQ(want.trial, got.trial);
}

// The record store's tests run on both backends: TEST_P(Suite, Name) with the suite
// instantiated by ATTUNE_ON_BOTH_BACKENDS(Suite), named .../sqlite and .../postgres. In the
// test, `dir.file(NAME)` names a new empty database (the same one for the same NAME): a file in
// a scratch directory, or a fresh database on this program's private server (pg_server.hpp).
enum class Backend { sqlite, postgres };

class Databases {
 public:
  explicit Databases(Backend b) : backend_(b) {}
  std::string file(const std::string& name) {
    if (backend_ == Backend::sqlite) return scratch_.file(name);
    auto [it, added] = urls_.emplace(name, "");
    if (added) it->second = PgServer::shared().new_database();
    return it->second;
  }
  const std::filesystem::path& path() const { return scratch_.path(); }

 private:
  Backend backend_;
  ScratchDir scratch_;
  std::map<std::string, std::string> urls_;
};

class OnBothBackends : public ::testing::TestWithParam<Backend> {
 protected:
  Backend backend() const { return GetParam(); }
  Databases dir{GetParam()};
};

inline std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::sqlite ? "sqlite" : "postgres";
}

#define ATTUNE_ON_BOTH_BACKENDS(Suite)                                                                              \
  class Suite : public ::attune::testing::OnBothBackends {};                                                        \
  INSTANTIATE_TEST_SUITE_P(                                                                                         \
      Backends, Suite, ::testing::Values(::attune::testing::Backend::sqlite, ::attune::testing::Backend::postgres), \
      ::attune::testing::backend_name)

inline constexpr const char* kGemmSpec =
    "tensor A[4, 4] f32\ntensor B[4, 4] f32\ntensor C[4, 4] f32\nC[m, n] += A[m, k] * B[k, n]\n";

}  // namespace attune::testing
