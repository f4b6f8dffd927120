// libgen_hostile_test.cpp — a shared database written by an attacker: a task name and a
// record's trace crafted to end a comment in the generated library. Every generated C file,
// read as a compiler reads it, holds no attacker token outside a comment.
#include <gtest/gtest.h>

#include "c_source_reader.hpp"
#include "libgen/libgen.hpp"
#include "libgen_test_util.hpp"

namespace attune {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;
using testing::slurp;

TEST(LibgenHostile, TaskNamesAndTracesCannotInjectCode) {
  ScratchDir d;
  const std::string db_path = d.file("t.db");
  const Op gemm = instantiate_template("gemm", {{"M", "4"}, {"N", "4"}, {"K", "4"}});
  const Op raw = parse_spec("tensor A[4,4] f32; tensor C[4] f32; C[m] += A[m,k]");
  {
    Database db = Database::open(db_path);
    const std::string target = load_target("cpu").name;
    int n = 0;
    for (const Op* op : {&gemm, &raw}) {
      const TaskInfo task =
          db.get_or_create_task("x */ evil(); /*\n*/ int y; /* ?\?/\n'\"|`", canonical_spec(*op), target);
      Record r;
      r.task_id = task.id;
      r.trace = R"({"schema_version": 1, "x": "*/ evil(); /*", "steps": []})";
      r.trace_hash = "h" + std::to_string(n++);
      r.status = Status::ok;
      r.times_s = {1e-3};
      r.median_s = 1e-3;
      r.compiler = "cc */ evil(); /*";
      r.flags = {"-O3", "*/ evil(); /*"};
      r.strategy = "*/ evil(); /*";
      db.insert(r);
    }
  }
  LibgenOptions o;
  o.db_path = db_path;
  o.out_dir = d.file("out");
  o.name = "mylib";
  const LibgenResult res = generate_library(o);
  ASSERT_EQ(res.tuned_kernels, 2);
  int c_files = 0;
  for (const auto& rel : res.files) {
    if (!rel.ends_with(".c") && !rel.ends_with(".h")) continue;
    ++c_files;
    const std::string src = slurp(d.file("out/" + rel));
    const std::string code = testing::code_outside_comments(src);
    // A name derived from the task's may hold "evil" as part of an identifier; a call may not.
    EXPECT_EQ(code.find("evil("), std::string::npos) << rel << "\n" << src;
    EXPECT_EQ(code.find("int y"), std::string::npos) << rel << "\n" << src;
  }
  EXPECT_EQ(c_files, 7);  // 2 kernels, the dispatcher, 2 generic files, 2 headers
  // The README's table keeps one row per kernel.
  const std::string readme = slurp(d.file("out/README.md"));
  EXPECT_EQ(readme.find("\n*/ int y"), std::string::npos) << readme;
}

}  // namespace
}  // namespace attune
