// report/page.cpp — the page's skeleton: style, provenance, sections, self-check (page.hpp).
#include "report/page.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "report/html.hpp"
#include "report/page_parts.hpp"
#include "report/provenance.hpp"

namespace attune::report {

namespace {

constexpr const char* kStyle = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1200px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ccc; }
h3 { font-size: 15px; margin-bottom: 4px; }
table { border-collapse: collapse; margin: 8px 0; } td, th { border: 1px solid #ddd; padding: 2px 8px; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
code, pre { font: 12px/1.3 ui-monospace, monospace; } pre { white-space: pre-wrap; word-break: break-all; }
.charts { display: flex; flex-wrap: wrap; gap: 8px; overflow-x: auto; }
.wide { overflow-x: auto; }
.no-data { color: #8a4b00; background: #fff6e5; padding: 6px 10px; border-left: 4px solid #e69f00; }
.note { color: #555; }
svg.chart { background: #fff; border: 1px solid #eee; }
svg .title { font-weight: 600; font-size: 13px; }
svg .tick, svg .point-label, svg .bar-note { font-size: 10px; fill: #444; }
svg .axis-label, svg .legend text { font-size: 11px; }
svg .frame { fill: none; stroke: #999; } svg .grid { stroke: #eee; }
svg path.series { fill: none; stroke-width: 2; } svg path.dots { stroke-width: 4; stroke-linecap: round; opacity: 0.5; }
svg path.roof { stroke-dasharray: 6 3; } svg .diagonal { stroke: #bbb; stroke-dasharray: 4 4; }
svg circle.kernel { fill: #D55E00; stroke: #fff; }
#selfcheck { color: #999; font-size: 10px; }
)css";

// Installed first, before anything else can fail: script errors and console.error calls are
// collected for the self-check.
constexpr const char* kErrorTrap = R"js(
window.__reportErrors = [];
window.addEventListener('error', function (e) { window.__reportErrors.push(String(e.message)); });
(function () {
  var orig = console.error;
  console.error = function () {
    window.__reportErrors.push(Array.prototype.join.call(arguments, ' '));
    return orig.apply(console, arguments);
  };
})();
)js";

// At the end of the page, once everything above is parsed: every chart must have a size and
// something drawn in it, every task a best-so-far curve of non-zero width; how long the page
// took to get here (performance.now(): since navigation began) is the load time.
constexpr const char* kSelfCheck = R"js(
(function () {
  function drawn(el) { var b = el.getBBox(); return b.width > 0 || b.height > 0; }
  var charts = document.querySelectorAll('svg.chart'), ok = 0, empty = [];
  charts.forEach(function (s) {
    var r = s.getBoundingClientRect(), any = false;
    s.querySelectorAll('path.series, rect.bar, rect.share, circle.kernel').forEach(function (e) {
      if (drawn(e)) any = true;
    });
    if (r.width > 0 && r.height > 0 && any) ok++; else empty.push(s.getAttribute('data-chart'));
  });
  var tasks = document.querySelectorAll('section.task'), curves = 0, without = [];
  tasks.forEach(function (t) {
    var has = false;
    t.querySelectorAll('svg[data-chart="best-vs-trials"] path.series').forEach(function (p) {
      if (p.getBBox().width > 0) has = true;
    });
    if (has) curves++; else without.push(t.getAttribute('data-task'));
  });
  var out = {charts: charts.length, charts_drawn: ok, empty_charts: empty, tasks: tasks.length,
             tasks_with_curve: curves, tasks_without_curve: without, no_data_sections:
             document.querySelectorAll('.no-data').length, errors: window.__reportErrors,
             load_ms: Math.round(performance.now())};
  document.getElementById('selfcheck').textContent = 'SELFCHECK ' + JSON.stringify(out);
})();
)js";

std::string row(const std::string& k, const std::string& escaped_value) {
  return "<tr><th>" + html_escape(k) + "</th><td>" + escaped_value + "</td></tr>\n";
}

// The runs each database noted, one row per distinct (command, attune, machine) with how many
// times and when it ran: tune-model and scripts run one command many times.
std::string runs_rows(const std::vector<DbRuns>& dbs) {
  constexpr std::size_t kMaxRows = 50;
  std::string s;
  for (const auto& d : dbs) {
    struct Seen {
      const RunInfo* first;
      std::string last_at;
      int count;
    };
    std::vector<Seen> seen;
    for (const auto& r : d.runs) {
      auto it = std::find_if(seen.begin(), seen.end(), [&](const Seen& x) {
        return x.first->command == r.command && x.first->attune == r.attune && x.first->machine == r.machine;
      });
      if (it == seen.end())
        seen.push_back({&r, r.started_at, 1});
      else
        it->last_at = r.started_at, ++it->count;
    }
    for (std::size_t i = 0; i < seen.size() && i < kMaxRows; ++i) {
      const Seen& x = seen[i];
      std::string when = html_escape(x.first->started_at);
      if (x.count > 1) when = std::to_string(x.count) + " runs, " + when + " to " + html_escape(x.last_at);
      s += row("tuning run", "<code>" + html_escape_cut(x.first->command, 1000) + "</code> " + when + "; attune " +
                                 html_escape_cut(x.first->attune, 200) + "; on " +
                                 html_escape_cut(x.first->machine, 200) +
                                 (dbs.size() > 1 ? " <span class=\"note\">(" + html_escape(d.db) + ")</span>" : ""));
    }
    if (seen.size() > kMaxRows)
      s += row("tuning run", std::to_string(seen.size() - kMaxRows) + " more in " + html_escape(d.db));
  }
  return s;
}

// Commands, commit, compilers and machines: what produced the data and this page.
std::string provenance_html(const ReportInput& in) {
  std::string s = section_open("provenance", "provenance", "What produced this data");
  const BuildInfo b = this_build();
  s += "<table>\n";
  s += row("report", "<code>" + html_escape(in.command) + "</code>, " + html_escape(in.generated_at));
  s += row("attune", html_escape(b.version) + ", commit <code>" + html_escape(b.commit) + "</code>, built with " +
                         html_escape(b.compiler));
  s += row("report machine", html_escape(this_machine()));
  for (const auto& p : in.db_paths) s += row("database", "<code>" + html_escape(p) + "</code>");
  s += runs_rows(in.runs);
  // The compilers that built the measured kernels, from the records themselves.
  std::map<std::string, std::int64_t> compilers;
  for (const auto& t : in.tasks)
    for (const auto& [c, n] : t.compilers) compilers[c] += n;
  for (const auto& [c, n] : compilers)
    s += row("kernel compiler", "<code>" + html_escape_cut(c, 200) + "</code> (" + std::to_string(n) + " records)");
  // The benches' own headers: the command that ran, the commit, the machine measured.
  for (const auto* kind : {"attune-bench.header", "tuning-efficiency.header", "model-bench.header"})
    for (const BenchLine* l : in.bench.of_kind(kind)) {
      std::string v = "<code>" + html_escape_cut(string_or_empty(l->j, "command"), 1000) + "</code>";
      if (const auto c = string_or_empty(l->j, "commit"); !c.empty())
        v += ", commit <code>" + html_escape(c) + "</code>";
      if (const auto c = string_or_empty(l->j, "cpu"); !c.empty()) v += ", on " + html_escape_cut(c, 200);
      if (const auto c = string_or_empty(l->j, "compiler"); !c.empty()) v += ", built with " + html_escape_cut(c, 200);
      s += row(kind, v + " <span class=\"note\">(" + html_escape(l->file) + ")</span>");
    }
  for (const BenchLine* l : in.bench.of_kind("model-profile"))
    s += row("model-profile", "<code>" + html_escape_cut(string_or_empty(l->j, "command"), 1000) + "</code>");
  s += "</table>\n";
  std::set<std::string> kinds;
  for (const auto& l : in.bench.lines) kinds.insert(l.j["kind"].get<std::string>());
  std::string other;
  for (const auto& k : kinds)
    if (k.rfind("attune-bench.", 0) != 0 && k.rfind("tuning-efficiency.", 0) != 0 && k.rfind("model-bench.", 0) != 0 &&
        k != "model-profile")
      other += (other.empty() ? "" : ", ") + html_escape_cut(k, 60);
  if (!other.empty()) s += "<p class=\"note\">Bench lines of kinds this report does not draw: " + other + "</p>\n";
  s += "<p class=\"note\">Tuning runs are those the database noted (attune tune and tune-model since schema "
       "version 3; runs through the C++ API or a bench note none: the benches' own headers name theirs).</p>\n";
  return s + "</section>\n";
}

}  // namespace

std::string section_open(const std::string& cls, const std::string& id, const std::string& title) {
  return "<section class=\"" + html_escape(cls) + "\" id=\"" + html_escape(id) + "\">\n<h2>" + html_escape(title) +
         "</h2>\n";
}

std::string no_data(const std::string& why) { return "<p class=\"no-data\">no data: " + html_escape(why) + "</p>\n"; }

std::string render_report(const ReportInput& in) {
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>attune report</title>\n";
  s += "<script>" + std::string(kErrorTrap) + "</script>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  s += "<h1>attune tuning report</h1>\n";
  s += "<p class=\"note\">Higher is better on every chart in GFLOP/s. Curves are the best verified measurement so "
       "far; dots are every measurement that ran and matched the reference.</p>\n";
  s += "<p class=\"note\"><a href=\"#provenance\">What produced this data</a>: commands, commit, compilers "
       "and machines, at the end of the page.</p>\n";
  s += task_summary_html(in.tasks);
  for (const auto& t : in.tasks) s += task_section_html(t);
  s += roofline_html(in.tasks, in.bench);
  s += bench_html(in.bench);
  s += model_html(in.bench);
  s += provenance_html(in);
  s += "<pre id=\"selfcheck\"></pre>\n<script>" + std::string(kSelfCheck) + "</script>\n</body>\n</html>\n";
  return s;
}

}  // namespace attune::report
