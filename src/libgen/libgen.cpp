// libgen.cpp — generate_library(): the stage's pipeline, top to bottom.
//
//   open the database (read-only) -> pick tasks (all of the target's, or the ops file's)
//   -> per task: best verified record, family match, symbol, kernel C (replayed trace)
//   -> write every generated file.
// The kernel source is regenerated from the record's trace with the target's codegen options,
// exactly as tune() lowered it before measuring.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "codegen/codegen_cpu.hpp"
#include "codegen/codegen_cpu_tensorize.hpp"
#include "hw/target.hpp"
#include "ir/error.hpp"
#include "ir/names.hpp"
#include "libgen/libgen.hpp"
#include "libgen/library.hpp"
#include "libgen/out_dir.hpp"
#include "schedule/transform.hpp"
#include "search/tuner.hpp"

namespace attune {

namespace fs = std::filesystem;
using libgen::Kernel;
using libgen::Library;

namespace {

// A task name as part of a C identifier: anything else becomes '_'.
std::string ident_part(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out.empty() ? "task" : out;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::vector<std::string> library_flags(const Target& t) {
  const std::vector<std::string> from = cpu_codegen_options(t).flags;
  std::vector<std::string> out;
  for (const auto& f : from)
    if (f != "-march=native" && f != "-mtune=native" && f != "-fopenmp" && f != "-fPIC" && f != "-fpic")
      out.push_back(f);
  return out;
}

namespace {

// The tasks to emit, in database order: those named by the ops file, else every task of the
// target with a verified record.
std::vector<std::pair<TaskInfo, Record>> pick_tasks(const Database& db, const Target& target, const LibgenOptions& o) {
  std::vector<std::pair<TaskInfo, Record>> out;
  if (!o.ops_file.empty()) {
    std::set<std::int64_t> seen;
    for (const Op& op : load_workload_file(o.ops_file)) {
      auto task = db.find_task(canonical_spec(op), target.name);
      auto best = task ? db.best(task->id) : std::nullopt;
      if (!best)
        throw Error(o.ops_file + ": op '" + op.name + "' has no verified record for target '" + target.name + "' in " +
                    db.path() + " (tune it first)");
      if (seen.insert(task->id).second) out.emplace_back(*task, *best);
    }
    return out;
  }
  for (const auto& task : db.tasks()) {
    if (task.target != target.name) continue;
    if (auto best = db.best(task.id)) out.emplace_back(task, *best);
  }
  if (out.empty())
    throw Error(db.path() + ": no tuned tasks for target '" + target.name +
                "' (no task has a verified record; run attune tune first)");
  return out;
}

// A family's entry point passes its pointers in the family's argument order: accept a match
// only when the op's tensors have exactly those roles, in that order (every template does;
// the epilogue bias is there only when the task has one).
bool dispatchable(const Op& op, const libgen::FamilyMatch& m) {
  if (!m.is_f32()) return false;
  // A real field whose zero stands for the default (eps) refuses negatives: a task tuned with
  // eps <= 0 could never be reached through the entry point, so it keeps an entry of its own.
  for (const auto& field : m.family->fields)
    if (!field.zero_means.empty() && std::stod(m.params.at(field.name)) <= 0) return false;
  std::vector<libgen::ArgRole> want;
  for (const auto& a : m.family->args)
    if (a.role != libgen::ArgRole::bias || m.bias()) want.push_back(a.role);
  if (op.tensors.size() != want.size()) return false;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const std::string& t = op.tensors[i].name;
    const bool is_bias = op.epilogue.bias && op.epilogue.bias->tensor == t;
    const libgen::ArgRole role =
        t == op.output.tensor ? libgen::ArgRole::output : (is_bias ? libgen::ArgRole::bias : libgen::ArgRole::input);
    if (role != want[i]) return false;
  }
  return true;
}

Kernel make_kernel(const Library& lib, const Target& target, const TaskInfo& task, const Record& best,
                   std::set<std::string>& used) {
  Kernel k;
  k.task = task;
  k.best = best;
  k.op = parse_spec(task.spec);
  k.op.name = task.name;
  if (auto m = libgen::match_family(k.op); m && dispatchable(k.op, *m)) k.match = std::move(m);

  const std::string hash = task.hash.substr(0, 8);
  const std::string stem = lib.name + "_" + (k.match ? k.match->family->name : ident_part(task.name));
  k.symbol = stem + "_k" + hash;
  for (int i = 2; used.count(k.symbol); ++i) k.symbol = stem + "_k" + hash + "_" + std::to_string(i);
  used.insert(k.symbol);
  if (k.match) {
    k.entry = lib.name + "_" + k.match->family->name;
  } else {
    k.entry = stem;
    if (used.count(k.entry)) k.entry = stem + "_" + hash;
    used.insert(k.entry);
  }
  k.file = "src/kernels/" + k.symbol + ".c";

  try {
    // The measured C (checked by its hash); the library's CMake compiles it with
    // library_flags(), the target's flags less those that tie it to this machine.
    k.source = rebuild_recorded(k.op, target, best, RebuildCheck::source_only).source;
  } catch (const Error& e) {
    throw Error("task '" + task.name + "': " + e.what());
  }
  k.gflops = gflops_of(k.op, best.median_s);
  return k;
}

// Every public name the families take, so a raw task's entry point cannot collide with one.
std::set<std::string> reserved_names(const std::string& name) {
  std::set<std::string> r;
  for (const auto& f : libgen::families())
    for (const char* suffix : {"", "_params", "_is_tuned", "_kernel_name", "_output_size"})
      r.insert(name + "_" + f.name + suffix);
  r.insert(name + "_layout");
  return r;
}

}  // namespace

LibgenResult generate_library(const LibgenOptions& o) {
  if (!is_c_identifier(o.name))
    throw Error("libgen: library name '" + comment_safe(o.name) +
                "' is not a C identifier (letters, digits and '_', not starting with a digit, at most 64)");
  if (is_c_keyword(o.name)) throw Error("libgen: library name '" + o.name + "' is a C or C++ keyword");
  if (o.db_path.empty()) throw Error("libgen: no database given (--db FILE)");
  if (o.out_dir.empty()) throw Error("libgen: no output directory given (--out DIR)");
  const Target target = load_target(o.target);
  if (target.kind != TargetKind::cpu)
    throw Error("libgen: target '" + target.name + "' is not a CPU target; only CPU libraries can be generated");

  const Database db = Database::open(o.db_path, OpenMode::read_only);
  const auto tasks = pick_tasks(db, target, o);

  Library lib;
  lib.name = o.name;
  lib.macro = upper(o.name);
  lib.target = target.name;
  lib.target_arch = target.arch;
  lib.flags = library_flags(target);
  // A file by its name; a shared database by its URL (which never holds a password).
  lib.db_name = o.db_path.find("://") != std::string::npos ? database_display_name(o.db_path)
                                                           : fs::path(o.db_path).filename().string();
  lib.generated_at = utc_now_iso8601();
  std::set<std::string> used = reserved_names(o.name);
  for (const auto& [task, best] : tasks) lib.kernels.push_back(make_kernel(lib, target, task, best, used));

  const std::string& n = lib.name;
  libgen::OutputFiles files = {{"include/" + n + ".h", libgen::emit_header(lib)},
                               {"src/" + n + "_internal.h", libgen::emit_internal_header(lib)},
                               {"src/" + n + "_dispatch.c", libgen::emit_dispatch(lib)},
                               {"src/" + n + "_generic.c", libgen::emit_generic(lib)},
                               {"src/" + n + "_generic_stages.c", libgen::emit_generic_stages(lib)}};
  for (const auto& k : lib.kernels) files.emplace_back(k.file, libgen::emit_kernel_file(lib, k));
  files.emplace_back("CMakeLists.txt", libgen::emit_cmake(lib));
  files.emplace_back("cmake/" + n + "Config.cmake", libgen::emit_package_config(lib));
  files.emplace_back(n + ".pc", libgen::emit_pkgconfig(lib));
  files.emplace_back("README.md", libgen::emit_readme(lib));
  LibgenResult res;
  res.files = libgen::write_output(o.out_dir, files, o.force);

  res.tuned_kernels = static_cast<int>(lib.kernels.size());
  for (const auto& k : lib.kernels)
    res.kernels.push_back(
        {k.symbol, k.task.name, k.match ? k.match->family->name : "", k.entry, k.file, k.best.median_s, k.gflops});
  return res;
}

}  // namespace attune
