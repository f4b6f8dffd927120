// report/page_bench.cpp — the bench results and the model's time per task (page_parts.hpp):
// attune-bench's rows as grouped bars of attune against each baseline with the ratios on the
// bars, attune-tuning-efficiency's strategies, the model bench, and `run-model --profile-json`.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "report/html.hpp"
#include "report/page_parts.hpp"

namespace attune::report {

namespace {

// The keys of an object of numbers (gflops{lib: x}) with "attune" first.
std::vector<std::string> contenders(const std::vector<const BenchLine*>& rows, const char* field) {
  std::set<std::string> names;
  for (const BenchLine* r : rows)
    if (r->j.contains(field) && r->j[field].is_object())
      for (const auto& [k, v] : r->j[field].items()) names.insert(k);
  std::vector<std::string> out;
  if (names.erase("attune")) out.push_back("attune");
  out.insert(out.end(), names.begin(), names.end());
  return out;
}

double value_of(const nlohmann::json& row, const char* field, const std::string& key) {
  return row.contains(field) ? number_or_nan(row[field], key.c_str()) : NAN;
}

// "x1.23": attune's speed over that contender's (from times or rates).
std::string ratio_note(double attune, double other, bool higher_is_better) {
  if (!(attune > 0) || !(other > 0)) return "";
  return "x" + num(higher_is_better ? attune / other : other / attune, 3);
}

std::string attune_bench_html(const BenchData& bench) {
  const auto rows = bench.of_kind("attune-bench.row");
  if (rows.empty()) return "";
  std::map<int, std::vector<const BenchLine*>> by_threads;
  for (const BenchLine* r : rows) {
    const double t = number_or_nan(r->j, "threads");
    by_threads[std::isfinite(t) ? static_cast<int>(t) : 0].push_back(r);
  }
  std::string s =
      "<h3>attune-bench: attune against each baseline</h3>\n<p class=\"note\">Bars are GFLOP/s; the "
      "figure on a baseline's bar is attune's speed over it (above 1: attune is faster).</p>\n";
  for (const auto& [threads, rs] : by_threads) {
    BarChart c;
    c.kind = "bench";
    c.title = "attune-bench, " + std::to_string(threads) + " thread(s)";
    c.y_label = "GFLOP/s";
    c.series = contenders(rs, "gflops");
    for (const BenchLine* r : rs) {
      BarGroup g{string_or_empty(r->j, "name"), {}, {}};
      const double a = value_of(r->j, "gflops", "attune");
      for (const auto& lib : c.series) {
        const double v = value_of(r->j, "gflops", lib);
        g.values.push_back(v);
        g.notes.push_back(lib == "attune" ? "" : ratio_note(a, v, true));
      }
      c.groups.push_back(std::move(g));
    }
    s += "<div class=\"wide\">" + bar_chart(c) + "</div>\n";
  }
  return s;
}

std::string efficiency_html(const BenchData& bench) {
  const auto rows = bench.of_kind("tuning-efficiency.strategy");
  if (rows.empty()) return "";
  std::vector<std::string> strategies, workloads;
  for (const BenchLine* r : rows) {
    const std::string st = string_or_empty(r->j, "strategy"), w = string_or_empty(r->j, "workload");
    if (std::find(strategies.begin(), strategies.end(), st) == strategies.end()) strategies.push_back(st);
    if (std::find(workloads.begin(), workloads.end(), w) == workloads.end()) workloads.push_back(w);
  }
  BarChart c;
  c.kind = "tuning-efficiency";
  c.title = "attune-tuning-efficiency: final best (median over seeds), ms";
  c.y_label = "ms (lower is better)";
  c.series = strategies;
  for (const auto& w : workloads) {
    BarGroup g{w, std::vector<double>(strategies.size(), NAN), std::vector<std::string>(strategies.size())};
    for (const BenchLine* r : rows) {
      if (string_or_empty(r->j, "workload") != w) continue;
      const auto i = static_cast<std::size_t>(
          std::find(strategies.begin(), strategies.end(), string_or_empty(r->j, "strategy")) - strategies.begin());
      g.values[i] = number_or_nan(r->j, "best_ms");
      const double inv = number_or_nan(r->j, "invalid");
      if (std::isfinite(inv)) g.notes[i] = num(inv, 3) + " inv.";
    }
    c.groups.push_back(std::move(g));
  }
  std::string s =
      "<h3>attune-tuning-efficiency</h3>\n<p class=\"note\">The figure on a bar is the median number "
      "of invalid attempts.</p>\n<div class=\"wide\">" +
      bar_chart(c) + "</div>\n";
  const auto quality = bench.of_kind("tuning-efficiency.quality");
  if (!quality.empty()) {
    s += "<table><tr><th>workload</th><th>pairwise P</th><th>pairwise A</th><th>peak@1 P</th><th>peak@1 A</th>"
         "<th>V precision</th><th>V recall</th></tr>\n";
    for (const BenchLine* q : quality) {
      s += "<tr><td>" + html_escape(string_or_empty(q->j, "workload")) + "</td>";
      for (const char* k : {"p_pairwise", "a_pairwise", "p_peak1", "a_peak1", "v_precision", "v_recall"})
        s += "<td class=\"n\">" + num(number_or_nan(q->j, k)) + "</td>";
      s += "</tr>\n";
    }
    s += "</table>\n";
  }
  for (const BenchLine* l : bench.of_kind("tuning-efficiency.summary"))
    s += "<p>target " + html_escape(string_or_empty(l->j, "target")) + ": samples_fraction " +
         num(number_or_nan(l->j, "samples_fraction")) + ", invalid_reduction " +
         num(number_or_nan(l->j, "invalid_reduction")) + "</p>\n";
  return s;
}

std::string model_bench_html(const BenchData& bench) {
  const auto rows = bench.of_kind("model-bench.row");
  if (rows.empty()) return "";
  BarChart c;
  c.kind = "model-bench";
  c.title = "models: time per inference, ms";
  c.y_label = "ms (lower is better)";
  c.series = contenders(rows, "seconds");
  for (const BenchLine* r : rows) {
    BarGroup g{string_or_empty(r->j, "model") + ", " + num(number_or_nan(r->j, "threads"), 3) + "t", {}, {}};
    const double a = value_of(r->j, "seconds", "attune");
    for (const auto& who : c.series) {
      const double v = value_of(r->j, "seconds", who);
      g.values.push_back(v * 1e3);
      g.notes.push_back(who == "attune" ? "" : ratio_note(a, v, false));
    }
    c.groups.push_back(std::move(g));
  }
  return "<h3>Model bench</h3>\n<p class=\"note\">The figure on a contender's bar is attune's speed over it.</p>\n"
         "<div class=\"wide\">" +
         bar_chart(c) + "</div>\n";
}

}  // namespace

std::string bench_html(const BenchData& bench) {
  std::string s = section_open("bench", "bench", "Bench results");
  const std::string body = attune_bench_html(bench) + efficiency_html(bench) + model_bench_html(bench);
  if (body.empty())
    return s +
           no_data(
               "no bench file given: attune-bench --json-out FILE (or attune-tuning-efficiency, or "
               "bench/models/attune_model_bench.py, with --json-out FILE), then attune report --bench FILE") +
           "</section>\n";
  return s + body + "</section>\n";
}

std::string model_html(const BenchData& bench) {
  std::string s = section_open("model", "model", "Model: time per task");
  const auto profiles = bench.of_kind("model-profile");
  if (profiles.empty())
    return s +
           no_data(
               "no model profile given: attune run-model MODEL --rounds N --profile-json FILE, once "
               "without --db (before tuning) and once with it (after), then --bench with both") +
           "</section>\n";
  // One group per task label, one bar per profile (before and after tuning), the share on it.
  BarChart c;
  c.kind = "model-profile";
  c.title = "time per run and task, ms";
  c.y_label = "ms per run";
  std::vector<std::string> labels;
  std::vector<std::map<std::string, std::pair<double, double>>> per_profile;  // label -> (ms, share)
  for (const BenchLine* p : profiles) {
    const std::string tuned = num(number_or_nan(p->j, "tuned"), 4), all = num(number_or_nan(p->j, "kernels"), 4);
    // The counts first: a legend cuts long labels, and which run is which is what matters.
    c.series.push_back(tuned + "/" + all +
                       " tuned: " + std::filesystem::path(string_or_empty(p->j, "model")).filename().string());
    std::map<std::string, std::pair<double, double>> m;
    double total = 0;
    if (p->j.contains("tasks") && p->j["tasks"].is_array())
      for (const auto& t : p->j["tasks"])
        total += std::max(0.0, std::isfinite(number_or_nan(t, "ms")) ? number_or_nan(t, "ms") : 0.0);
    if (p->j.contains("tasks") && p->j["tasks"].is_array())
      for (const auto& t : p->j["tasks"]) {
        const std::string label = "task " + num(number_or_nan(t, "task"), 6) + " " + string_or_empty(t, "label");
        const double ms = number_or_nan(t, "ms");
        m[label] = {ms, total > 0 ? ms / total : NAN};
        if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
      }
    per_profile.push_back(std::move(m));
  }
  for (const auto& label : labels) {
    BarGroup g{label, {}, {}};
    for (const auto& m : per_profile) {
      const auto it = m.find(label);
      g.values.push_back(it == m.end() ? NAN : it->second.first);
      g.notes.push_back(it == m.end() || !std::isfinite(it->second.second) ? ""
                                                                           : fixed(100 * it->second.second, 1) + "%");
    }
    c.groups.push_back(std::move(g));
  }
  return s + "<p class=\"note\">The figure on a bar is the task's share of that run's time.</p>\n<div class=\"wide\">" +
         bar_chart(c) + "</div>\n</section>\n";
}

}  // namespace attune::report
