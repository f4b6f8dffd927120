// report/page.hpp — the report as one self-contained HTML page (no network, no external file).
//
// render_report() assembles the sections: provenance (commands, commit, compilers, machines),
// a summary of the tasks, one section per task (best-so-far curves against trials and wall
// time, the spread of all measurements, the mapping arms' share of the budget, the status
// breakdown with examples, ml2's predictions against measurements and V's confusion matrix),
// a roofline per target, the bench results and the model's time per task. A section without
// data says so in words ("no data: ..."), so an empty database is a page that explains itself.
// Charts are inline SVG (svg.hpp); the page's one script is static, never built from data: it
// records script errors and, at the end of the page, measures the charts and writes what it
// found into <pre id="selfcheck"> (for tests/report/report_browser_test.sh, which reads it
// from a headless browser).
#pragma once

#include <string>
#include <vector>

#include "report/bench_data.hpp"
#include "report/task_data.hpp"

namespace attune::report {

struct ReportInput {
  std::vector<std::string> db_paths;
  std::vector<TaskData> tasks;
  std::vector<DbRuns> runs;
  BenchData bench;
  std::string command;       // the `attune report` command line that made the page
  std::string generated_at;  // ISO-8601 UTC
};

std::string render_report(const ReportInput& in);

}  // namespace attune::report
