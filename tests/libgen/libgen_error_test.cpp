// Error: bad inputs to generate_library() raise attune::Error with a one-line message that
// names the offending thing.
#include <gtest/gtest.h>

#include "ir/error.hpp"
#include "libgen/libgen.hpp"
#include "libgen_test_util.hpp"

namespace attune {
namespace {

using testing::ScratchDir;

std::string error_of(const LibgenOptions& o) {
  try {
    generate_library(o);
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
    return m;
  }
  return "(no error)";
}

LibgenOptions options(const ScratchDir& d) {
  LibgenOptions o;
  o.db_path = d.file("tuning.db");
  o.out_dir = d.file("out");
  o.name = "kern";
  return o;
}

TEST(LibgenErrors, MissingDatabase) {
  ScratchDir d;
  const auto o = options(d);
  EXPECT_EQ(error_of(o), o.db_path + ": no database at " + o.db_path);
  EXPECT_FALSE(std::filesystem::exists(o.db_path)) << "a missing database is not created";
}

TEST(LibgenErrors, NoTunedTasks) {
  ScratchDir d;
  const auto o = options(d);
  {
    // A task with only a failed attempt has nothing verified.
    Database db = Database::open(o.db_path);
    const Op op = instantiate_template("gemm", {{"M", "4"}, {"N", "4"}, {"K", "4"}});
    const auto t = db.get_or_create_task("gemm", canonical_spec(op), load_target("cpu").name);
    Record r;
    r.task_id = t.id;
    r.trace = "{}";
    r.status = Status::wrong_result;
    db.insert(r);
  }
  EXPECT_EQ(error_of(o), o.db_path + ": no tuned tasks for target '" + host_cpu_target() +
                             "' (no task has a verified record; "
                             "run attune tune first)");
}

TEST(LibgenErrors, BadName) {
  ScratchDir d;
  auto o = options(d);
  o.name = "my-lib";
  EXPECT_EQ(error_of(o),
            "libgen: library name 'my-lib' is not a C identifier (letters, digits and '_', not "
            "starting with a digit, at most 64)");
}

TEST(LibgenErrors, UnwritableOutputDirectory) {
  ScratchDir d;
  auto o = options(d);
  testing::add_verified_task(o.db_path, "g", instantiate_template("gemm", {{"M", "4"}, {"N", "4"}, {"K", "4"}}));
  testing::spit(d.file("plain_file"), "x");
  o.out_dir = d.file("plain_file");  // a file, not a directory (permissions would not stop root)
  EXPECT_EQ(error_of(o), o.out_dir + ": cannot write the library: not a directory");
  o.out_dir = d.file("plain_file/sub");
  EXPECT_EQ(error_of(o).rfind(o.out_dir + ": cannot create the output directory: ", 0), 0u) << error_of(o);
}

TEST(LibgenErrors, OpsFileNamesAnUntunedOp) {
  ScratchDir d;
  auto o = options(d);
  testing::add_verified_task(o.db_path, "g", instantiate_template("gemm", {{"M", "4"}, {"N", "4"}, {"K", "4"}}));
  o.ops_file = d.file("ops.txt");
  testing::spit(o.ops_file, "small gemm M=4 N=4 K=4\nbig gemm M=8 N=8 K=8\n");
  EXPECT_EQ(error_of(o), o.ops_file + ": op 'big' has no verified record for target '" + host_cpu_target() + "' in " +
                             o.db_path + " (tune it first)");
  testing::spit(o.ops_file, "small gemm M=4 N=4 K=4\n");
  EXPECT_EQ(generate_library(o).tuned_kernels, 1);
}

TEST(LibgenErrors, NotACpuTarget) {
  ScratchDir d;
  auto o = options(d);
  o.target = "cuda";
  EXPECT_EQ(error_of(o), "libgen: target 'nvidia-h200' is not a CPU target; only CPU libraries can be generated");
}

}  // namespace
}  // namespace attune
