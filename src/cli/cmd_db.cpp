// cmd_db.cpp — reading the tuning database: `attune best`, `attune history`, `attune export`,
// and moving records between databases: `attune db copy SRC DST`.
//
// The three readers open the database read-only, so looking at results never changes the file
// (nor creates one where a path was mistyped). Messages name db.path(), never the --db text:
// for PostgreSQL that is the URL without a password.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/cli_common.hpp"
#include "codegen/codegen_cpu.hpp"
#include "codegen/codegen_vta.hpp"
#include "db/db.hpp"
#include "hw/target.hpp"
#include "ir/error.hpp"
#include "ir/json_limits.hpp"
#include "runtime/runtime.hpp"
#include "schedule/transform.hpp"
#include "search/tuner.hpp"

namespace attune::cli {

namespace {

struct TaskArgs {
  std::string spec;
  std::string db = kDefaultDb;
  std::string target = "cpu";
  bool json = false;
};

// The task tune() would have recorded SPEC under: (canonical spec, the target file's name).
struct Found {
  Op op;
  Target target;
  Database db;
  TaskInfo task;
};

Found find_task(const TaskArgs& a) {
  Op op = op_from_cli(a.spec);
  const bool vta = is_vta_target_arg(a.target);
  Target target = vta ? load_target("vta") : load_target_arg(a.target);
  const std::string name = tuning_target_name(vta ? a.target : target_arg(a.target));
  Database db = Database::open(a.db, OpenMode::read_only);
  auto task = db.find_task(canonical_spec(op), name);
  if (!task)
    throw Error(db.path() + ": no tuning records for " + (op.name.empty() ? "this op" : "'" + op.name + "'") +
                " on target " + name + " (run `attune tune` first)");
  // The kernel's source names its op: the spec given here under another label (or none) must
  // still rebuild to the kernel that was measured under the task's name.
  op.name = task->name;
  return {std::move(op), std::move(target), std::move(db), std::move(*task)};
}

// Rebuilds the best record's kernel, checked to be the one it measured, and returns the path of
// its source in the build cache (<cache>/<key>.c, as Builder names it), writing it when missing.
std::string best_source_path(const Op& op, const Target& target, const Record& best) {
  const Artifact art = rebuild_recorded(op, target, best);
  const Builder builder;
  const std::string path = builder.cache_dir() + "/" + builder.cache_key(art) + ".c";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) write_file_atomic(path, art.source);
  return path;
}

int run_best(const TaskArgs& a) {
  const Found f = find_task(a);
  const TaskCounts counts = f.db.counts(f.task.id);
  const auto best = f.db.best(f.task.id);
  if (!best)
    throw Error(f.db.path() + ": task " + std::to_string(f.task.id) + " has " + std::to_string(counts.trials) +
                " records and none is valid");
  const double gflops = gflops_of(f.op, best->median_s);

  // The C is a convenience; a trace that no longer replays must not hide the record itself.
  std::string c_path, c_note;
  if (f.target.kind != TargetKind::cpu) {
    c_note = "no C backend for " + std::string(target_kind_name(f.target.kind)) + " targets";
  } else {
    try {
      c_path = best_source_path(f.op, f.target, *best);
    } catch (const Error& e) {
      c_note = std::string("cannot re-lower: ") + e.what();
    }
  }

  if (a.json) {
    nlohmann::json trace;
    try {
      trace = parse_json_limited(best->trace, "trace");
    } catch (const Error&) {
      trace = best->trace;
    }
    nlohmann::json j = {{"op", f.task.name},
                        {"target", f.task.target},
                        {"task_id", f.task.id},
                        {"record_id", best->id},
                        {"status", status_name(best->status)},
                        {"gflops", gflops},
                        {"time_ms", best->median_s * 1e3},
                        {"trials", counts.trials},
                        {"valid", counts.valid},
                        {"trial", best->trial},
                        {"strategy", best->strategy},
                        {"trace", trace},
                        {"c_path", c_path.empty() ? nlohmann::json() : nlohmann::json(c_path)}};
    std::cout << j.dump() << std::endl;
    return 0;
  }
  std::cout << "task      " << (f.task.name.empty() ? "(unnamed op)" : f.task.name) << " on " << f.task.target
            << " (task " << f.task.id << ")\n"
            << "best      " << format_time(best->median_s) << ", " << fixed(gflops, 2) << " GFLOP/s (record "
            << best->id << ", trial " << best->trial << ", " << best->strategy << ")\n"
            << "trials    " << counts.trials << " (" << counts.valid << " valid)\n"
            << "trace     " << best->trace << "\n"
            << "C source  " << (c_path.empty() ? c_note : c_path) << std::endl;
  return 0;
}

int run_history(const TaskArgs& a) {
  const Found f = find_task(a);
  // Columns for plotting tools: '#' comments the header, "nan" marks no value yet.
  std::cout << "# trial status time_ms best_ms best_gflops\n";
  for (const auto& p : f.db.history(f.task.id)) {
    std::cout << p.trial << ' ' << status_name(p.status) << ' '
              << (p.status == Status::ok ? fixed(p.median_s * 1e3, 6) : "nan") << ' '
              << (p.best_s ? fixed(*p.best_s * 1e3, 6) : "nan") << ' '
              << (p.best_s ? fixed(gflops_of(f.op, *p.best_s), 3) : "nan") << '\n';
  }
  std::cout.flush();
  return 0;
}

struct ExportArgs {
  bool jsonl = false;
  std::string db = kDefaultDb;
  std::string out;  // empty: stdout
};

int run_export(const ExportArgs& a) {
  const Database db = Database::open(a.db, OpenMode::read_only);
  if (a.out.empty() || a.out == "-") {
    db.export_jsonl(std::cout);
    std::cout.flush();
    return 0;
  }
  std::ostringstream text;
  db.export_jsonl(text);
  write_file_atomic(a.out, text.str());
  return 0;
}

struct CopyArgs {
  std::string src, dst;
};

int run_copy(const CopyArgs& a) {
  // Read-only: copying never changes the source (nor creates it where a name was mistyped).
  const Database src = Database::open(a.src, OpenMode::read_only);
  Database dst = Database::open(a.dst, OpenMode::read_write_create);
  const CopySummary s = copy_database(src, dst);
  std::cout << "copied " << s.records << " records of " << s.tasks << " tasks and " << s.models << " cost models from "
            << src.path() << " to " << dst.path();
  if (s.records_present || s.models_present)
    std::cout << " (" << s.records_present << " records and " << s.models_present << " models were there already)";
  std::cout << std::endl;
  return 0;
}

void add_task_options(CLI::App* sub, TaskArgs& args, bool with_json) {
  sub->add_option("SPEC", args.spec, "op: template call, workload line/name, raw spec or spec file")->required();
  sub->add_option("--db", args.db, "tuning database")->capture_default_str();
  sub->add_option("--target", args.target, "target the op was tuned for")->capture_default_str();
  if (with_json) sub->add_flag("--json", args.json, "print one JSON object");
}

}  // namespace

void add_db_commands(CLI::App& app, Action& action) {
  auto best = std::make_shared<TaskArgs>();
  auto* b = app.add_subcommand("best", "Show the best verified schedule of SPEC in the database and its C");
  add_task_options(b, *best, true);
  b->callback([&action, best] { action = [best] { return run_best(*best); }; });

  auto hist = std::make_shared<TaskArgs>();
  auto* h = app.add_subcommand("history", "Print the best-so-far tuning curve of SPEC (one row per trial)");
  add_task_options(h, *hist, false);
  h->callback([&action, hist] { action = [hist] { return run_history(*hist); }; });

  auto exp = std::make_shared<ExportArgs>();
  auto* e = app.add_subcommand("export", "Export every record of the database (JSON Lines)");
  e->add_flag("--jsonl", exp->jsonl, "one JSON object per record and line (the only format)")->required();
  e->add_option("--db", exp->db, "tuning database")->capture_default_str();
  e->add_option("--out", exp->out, "write to this file instead of stdout");
  e->callback([&action, exp] { action = [exp] { return run_export(*exp); }; });

  auto* db = app.add_subcommand("db", "Manage tuning databases (SQLite files, postgresql:// URLs)");
  db->require_subcommand(1);
  auto copy = std::make_shared<CopyArgs>();
  auto* c = db->add_subcommand("copy", "Merge every task, record and cost model of SRC into DST");
  c->add_option("SRC", copy->src, "database to read: a file or postgresql://USER@HOST/DB")->required();
  c->add_option("DST", copy->dst, "database to write (created when missing)")->required();
  c->callback([&action, copy] { action = [copy] { return run_copy(*copy); }; });
}

}  // namespace attune::cli
