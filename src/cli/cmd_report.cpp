// cmd_report.cpp — `attune report`: one self-contained HTML page of tuning databases and bench
// results (src/report/, page.hpp says what it shows).
//
// Everything is read before anything is written: a database that cannot be opened (missing,
// not attune's, another schema version) or a bench file that is missing or malformed is one
// line on stderr and no page, never half a page. A database without tasks is a page whose
// sections say "no data".
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/cli_common.hpp"
#include "db/db.hpp"
#include "ir/error.hpp"
#include "report/page.hpp"

namespace attune::cli {

namespace {

struct ReportArgs {
  std::vector<std::string> dbs;
  std::vector<std::string> tasks;
  std::vector<std::string> bench;
  std::string out;
};

int run_report(const ReportArgs& a) {
  report::ReportInput in;
  in.db_paths = a.dbs;
  in.tasks = report::gather_tasks(a.dbs, a.tasks);
  in.runs = report::gather_runs(a.dbs);
  if (!a.tasks.empty() && in.tasks.empty())
    throw Error("--task: no task of the database(s) is named, numbered or specified as given");
  in.bench = report::read_bench_files(a.bench);
  in.command = command_line();
  in.generated_at = utc_now_iso8601();
  const std::string html = report::render_report(in);
  write_file_atomic(a.out, html);
  std::int64_t records = 0;
  for (const auto& t : in.tasks) records += t.trials + t.confirmations;
  std::cout << "report: " << in.tasks.size() << " tasks, " << records << " records, " << in.bench.lines.size()
            << " bench lines -> " << a.out << " (" << (html.size() + 1023) / 1024 << " KiB)" << std::endl;
  if (in.tasks.empty()) std::cerr << "report: no tuning tasks in the database: the page says \"no data\"\n";
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<ReportArgs>();
  auto* r =
      app.add_subcommand("report", "Write an HTML report (charts, no network needed) of databases and bench results");
  r->add_option("--db", a->dbs, "tuning database (repeat for several: one curve per database and strategy)")
      ->required();
  r->add_option("--task", a->tasks, "only these tasks: a name, a task id or a spec (repeatable; default all)");
  r->add_option("--bench", a->bench,
                "JSON Lines of attune-bench / attune-tuning-efficiency --json-out, the model bench, or "
                "run-model --profile-json (repeatable)");
  r->add_option("--out", a->out, "the HTML file to write")->required();
  r->callback([&action, a] { action = [a] { return run_report(*a); }; });
}

}  // namespace attune::cli
