// report/page_roofline.cpp — a roofline per target (page_parts.hpp): each task's best kernel
// by arithmetic intensity and GFLOP/s, under the FMA peak and the memory bandwidth that
// attune-bench measured (its attune-bench.machine lines).
#include <cmath>
#include <map>

#include "report/html.hpp"
#include "report/page_parts.hpp"

namespace attune::report {

namespace {

// The roofs measured for `target`: the bench's machine lines, when its header names that
// target (or names none).
std::vector<Roof> roofs_for(const std::string& target, const BenchData& bench) {
  std::string bench_target;
  for (const BenchLine* h : bench.of_kind("attune-bench.header")) bench_target = string_or_empty(h->j, "target");
  std::vector<Roof> roofs;
  if (!bench_target.empty() && bench_target != target) return roofs;
  for (const BenchLine* l : bench.of_kind("attune-bench.machine")) {
    const double peak = number_or_nan(l->j, "peak_gflops"), bw = number_or_nan(l->j, "bandwidth_gbs");
    if (!std::isfinite(peak) && !std::isfinite(bw)) continue;
    const double threads = number_or_nan(l->j, "threads");
    std::string label = (std::isfinite(threads) ? num(threads, 3) + " threads: " : std::string()) +
                        (std::isfinite(peak) ? num(peak) + " GFLOP/s" : std::string("no peak")) +
                        (std::isfinite(bw) ? ", " + num(bw) + " GB/s" : std::string(", no bandwidth"));
    roofs.push_back({label, peak, bw});
  }
  return roofs;
}

}  // namespace

std::string roofline_html(const std::vector<TaskData>& tasks, const BenchData& bench) {
  std::string s = section_open("roofline", "roofline", "Roofline per target");
  std::map<std::string, std::vector<const TaskData*>> by_target;
  for (const auto& t : tasks)
    if (t.have_op && t.best > 0) by_target[t.task.target].push_back(&t);
  if (by_target.empty()) return s + no_data("no task has a verified kernel with a known FLOP count") + "</section>\n";
  for (const auto& [target, ts] : by_target) {
    RooflineChart c;
    c.title = "roofline: " + target;
    c.roofs = roofs_for(target, bench);
    for (const TaskData* t : ts)
      c.points.push_back({t->task.name + " #" + std::to_string(t->task.id), t->flops / t->bytes, t->best});
    s += "<h3>" + html_escape(target) + "</h3>\n";
    if (c.roofs.empty())
      s += no_data("no FMA peak or bandwidth measured for " + target +
                   ": run attune-bench --json-out FILE on this machine and pass --bench FILE (the kernels are "
                   "drawn without roofs)");
    s += "<div class=\"wide\">" + roofline_chart(c) + "</div>\n";
  }
  s += "<p class=\"note\">Intensity counts each tensor of the op once (inputs and output): the traffic of a kernel "
       "that keeps its tiles in cache. A multi-stage op's intermediates are not counted.</p>\n";
  return s + "</section>\n";
}

}  // namespace attune::report
