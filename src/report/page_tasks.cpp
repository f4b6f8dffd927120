// report/page_tasks.cpp — the task summary and one section per task (page_parts.hpp).
#include <algorithm>
#include <cmath>

#include "report/html.hpp"
#include "report/page_parts.hpp"

namespace attune::report {

namespace {

std::string task_title(const TaskData& t) {
  return (t.task.name.empty() ? std::string("(unnamed op)") : t.task.name) + " on " + t.task.target + " (task " +
         std::to_string(t.task.id) + ")";
}

std::string anchor(const TaskData& t) { return "task-" + t.task.hash.substr(0, 16); }

std::string curves_html(const TaskData& t) {
  XYChart by_trial{"best-vs-trials", "best so far against trials", {"trial"}, {t.metric}, {}};
  XYChart by_time{
      "best-vs-time", "best so far against wall time", {"seconds since the run's first record"}, {t.metric}, {}};
  for (const auto& r : t.runs) {
    by_trial.series.push_back({r.label, r.by_trial, SeriesStyle::step});
    by_time.series.push_back({r.label, r.by_time, SeriesStyle::step});
  }
  XYChart spread{"spread", "every verified measurement", {"trial"}, {t.metric}, t.spread};
  return "<div class=\"charts\">\n" + xy_chart(by_trial) + xy_chart(by_time) + xy_chart(spread) + "</div>\n";
}

std::string arms_html(const TaskData& t) {
  if (t.arms.empty()) return "";
  std::vector<Share> shares;
  for (const auto& a : t.arms)
    shares.push_back({a.arm, static_cast<double>(a.trials),
                      std::to_string(a.valid) + " valid, best " + num(a.best) + " " + t.metric});
  return "<h3>Mapping arms' share of the budget</h3>\n" + share_bar("arms", "trials per arm", shares);
}

std::string statuses_html(const TaskData& t) {
  std::vector<Share> shares;
  for (const auto& s : t.statuses) shares.push_back({s.status, static_cast<double>(s.count), ""});
  std::string h = "<h3>Status of every attempt</h3>\n" + share_bar("statuses", "attempts by status", shares);
  h += "<table class=\"statuses\"><tr><th>status</th><th>attempts</th><th>examples</th></tr>\n";
  for (const auto& s : t.statuses) {
    std::string ex;
    for (const auto& e : s.examples) ex += "<code>" + html_escape(e) + "</code><br>";
    h += "<tr><td>" + html_escape(s.status) + "</td><td class=\"n\">" + std::to_string(s.count) + "</td><td>" + ex +
         "</td></tr>\n";
  }
  return h + "</table>\n";
}

std::string ml2_html(const TaskData& t) {
  const Ml2Predictions& m = t.ml2;
  if (!m.any()) {
    if (t.strategies.count("ml2"))
      return "<h3>ml2: predicted against measured</h3>\n" +
             no_data("the ml2 records of this task carry no predictions (tuned by an attune before they were kept)");
    return "";
  }
  std::string h = "<h3>ml2: predicted against measured</h3>\n<div class=\"charts\">\n";
  h += xy_chart({"ml2-p",
                 "P (visible features): score against measured",
                 {"P's score"},
                 {t.metric},
                 {{"P", m.p, SeriesStyle::dots}}});
  h += xy_chart({"ml2-a",
                 "A (visible + hidden features): score against measured",
                 {"A's score"},
                 {t.metric},
                 {{"A", m.a, SeriesStyle::dots}}});
  h += "</div>\n<p class=\"note\">P and A are rankers: their scores order candidates, they are not in " +
       html_escape(t.metric) +
       ". V filters before anything is built, so the candidates it called invalid were only "
       "measured as probes.</p>\n";
  auto cell = [](std::int64_t n) { return "<td class=\"n\">" + std::to_string(n) + "</td>"; };
  h += "<table class=\"confusion\"><tr><th>V's confusion matrix (" + std::to_string(m.v_count) +
       " predictions)</th><th>measured ok</th><th>failed</th></tr>\n";
  h += "<tr><th>predicted valid</th>" + cell(m.v_valid_ok) + cell(m.v_valid_failed) + "</tr>\n";
  h += "<tr><th>predicted invalid</th>" + cell(m.v_invalid_ok) + cell(m.v_invalid_failed) + "</tr>\n</table>\n";
  return h;
}

}  // namespace

std::string task_summary_html(const std::vector<TaskData>& tasks) {
  std::string s = section_open("summary", "tasks", "Tasks");
  if (tasks.empty()) return s + no_data("the database has no tuning tasks (run `attune tune` first)") + "</section>\n";
  s += "<table><tr><th>task</th><th>trials</th><th>ok</th><th>best</th><th>strategies</th><th>first record</th>"
       "<th>last record</th></tr>\n";
  for (const auto& t : tasks) {
    std::int64_t ok = 0;
    for (const auto& st : t.statuses)
      if (st.status == "ok") ok = st.count;
    std::string strategies;
    for (const auto& [name, n] : t.strategies) strategies += (strategies.empty() ? "" : ", ") + name;
    s += "<tr><td><a href=\"#" + html_escape(anchor(t)) + "\">" + html_escape_cut(task_title(t), 120) +
         "</a></td><td class=\"n\">" + std::to_string(t.trials) + "</td><td class=\"n\">" + std::to_string(ok) +
         "</td><td class=\"n\">" + (t.best > 0 ? num(t.best) + " " + html_escape(t.metric) : "none") + "</td><td>" +
         html_escape_cut(strategies, 200) + "</td><td>" + html_escape(t.first_at) + "</td><td>" +
         html_escape(t.last_at) + "</td></tr>\n";
  }
  return s + "</table>\n</section>\n";
}

std::string task_section_html(const TaskData& t) {
  std::string s = "<section class=\"task\" id=\"" + html_escape(anchor(t)) + "\" data-task=\"" +
                  html_escape(std::to_string(t.task.id)) + "\">\n<h2>" + html_escape_cut(task_title(t), 160) +
                  "</h2>\n";
  s += "<details><summary>spec</summary><pre>" + html_escape_cut(t.task.spec, 20000) + "</pre></details>\n";
  s += "<p>" + std::to_string(t.trials) + " attempts, " + std::to_string(t.confirmations) +
       " confirmations (re-measurements of the fastest traces, not drawn)";
  if (!t.have_op) s += "; the spec does not parse here, so speeds are calls per second";
  s += "</p>\n";
  if (t.best <= 0) s += no_data("no attempt of this task ran and matched the reference, so there is no curve");
  s += curves_html(t) + arms_html(t) + statuses_html(t) + ml2_html(t);
  return s + "</section>\n";
}

}  // namespace attune::report
