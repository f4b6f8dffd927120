// report/page_parts.hpp — the sections of the page (page.hpp), one file each:
// page_tasks.cpp (per task), page_roofline.cpp, page_bench.cpp (benches and models).
#pragma once

#include <string>
#include <vector>

#include "report/bench_data.hpp"
#include "report/task_data.hpp"

namespace attune::report {

// <section class="CLS" id="ID"><h2>TITLE</h2>; the caller closes it. ID and TITLE are escaped.
std::string section_open(const std::string& cls, const std::string& id, const std::string& title);
// An explicit "no data" paragraph; `why` is escaped.
std::string no_data(const std::string& why);

std::string task_summary_html(const std::vector<TaskData>& tasks);
std::string task_section_html(const TaskData& t);
std::string roofline_html(const std::vector<TaskData>& tasks, const BenchData& bench);
std::string bench_html(const BenchData& bench);
std::string model_html(const BenchData& bench);

}  // namespace attune::report
