// Helpers shared by the libgen tests: scratch directories, files, shell commands, and
// databases whose records are written by hand (an empty trace: the untransformed nest, which
// is correct by construction) so that generation can be tested without tuning.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <stdlib.h>
#include <sys/wait.h>

#include "db/db.hpp"
#include "hw/target.hpp"
#include "ir/op.hpp"
#include "schedule/schedule.hpp"
#include "schedule/transform.hpp"

namespace attune::testing {

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "attune-libgen-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
  }
  ~ScratchDir() {
    if (std::getenv("ATTUNE_KEEP_TEST_DIR")) {  // debugging: look at what was generated
      std::fprintf(stderr, "kept %s\n", dir_.c_str());
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

inline void spit(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// Runs `cmd` through the shell with its output in `log`; returns the exit status.
inline int shell(const std::string& cmd, const std::string& log) {
  const int rc = std::system(("(" + cmd + ") >" + log + " 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Records an ok attempt with the empty trace for `op` (named `name`) in the database at `path`.
inline void add_verified_task(const std::string& path, const std::string& name, const Op& op, double median_s = 1e-3) {
  Database db = Database::open(path);
  const TaskInfo task = db.get_or_create_task(name, canonical_spec(op), load_target("cpu").name);
  Record r;
  r.task_id = task.id;
  r.trace = trace_to_string(Trace{});
  r.trace_hash = content_hash(r.trace);
  r.status = Status::ok;
  r.times_s = {median_s, median_s};
  r.median_s = median_s;
  r.compiler = "/usr/bin/cc | cc (test) 12.2.0";
  r.flags = {"-O3", "-march=native", "-fopenmp"};
  r.strategy = "handwritten";
  db.insert(r);
}

}  // namespace attune::testing
