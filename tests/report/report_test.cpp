// The report stage in-process: escaping of untrusted text, the chart primitives, gathering a
// database's tasks (curves per strategy, statuses with examples, arms, ml2 predictions), the
// bench files' errors, and a page that says "no data" rather than breaking. What the page looks
// like in a browser is tests/report/report_browser_test.sh.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../db/db_test_util.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "report/bench_data.hpp"
#include "report/html.hpp"
#include "report/page.hpp"
#include "report/svg.hpp"
#include "report/task_data.hpp"

namespace attune::report {
namespace {

using attune::testing::ScratchDir;

TEST(ReportHtml, EscapesEveryMarkupCharacterAndControlBytes) {
  EXPECT_EQ(html_escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
  EXPECT_EQ(html_escape(std::string("a\0b\x1b"
                                    "c\td\ne",
                                    9)),
            "a?b?c\td\ne");
  EXPECT_EQ(html_escape_cut("abcdef", 3), "abc ...");
  EXPECT_EQ(html_escape_cut("\xce\xbb\xce\xbb", 3), "\xce\xbb ...");  // never half a character
  EXPECT_EQ(num(NAN), "n/a");
  EXPECT_EQ(num(1234.5, 3), "1.23e+03");
}

TEST(ReportSvg, ChartsEscapeLabelsAndSkipPointsTheyCannotPlace) {
  XYChart c{"best-vs-trials", "t<1>", {"trial"}, {"GFLOP/s", true}, {}};
  c.series.push_back({"<b>evil</b>", {{0, 1}, {1, NAN}, {2, -3}, {3, 10}}, SeriesStyle::step});
  const std::string svg = xy_chart(c);
  EXPECT_NE(svg.find("data-chart=\"best-vs-trials\""), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;b&gt;evil&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
  // Two drawable points of the step series: a move, one step, and the run to the right edge.
  EXPECT_NE(svg.find("class=\"series\""), std::string::npos);

  BarChart b{"bench", "bars", "GFLOP/s", {"attune", "openblas"}, {{"gemm_512", {100, 80}, {"", "x1.25"}}}};
  const std::string bars = bar_chart(b);
  EXPECT_NE(bars.find("x1.25"), std::string::npos);
  EXPECT_EQ(bars.find("nan"), std::string::npos);

  RooflineChart r{"roofline", {{"1 thread", 100, 20}}, {{"gemm", 10, 50}}};
  const std::string roof = roofline_chart(r);
  EXPECT_NE(roof.find("class=\"kernel\""), std::string::npos);
  EXPECT_NE(roof.find("class=\"series roof\""), std::string::npos);
}

TEST(ReportData, ParsesTheDatabasesTimesAndArmsFromTraces) {
  EXPECT_DOUBLE_EQ(*parse_utc("1970-01-01T00:01:02.500Z"), 62.5);
  EXPECT_FALSE(parse_utc("yesterday"));
  EXPECT_FALSE(parse_utc("2025-13-01T00:00:00Z"));
  EXPECT_EQ(arm_of_trace(R"({"schema_version":1,"steps":[{"kind":"split","loop":"m","factors":[2,2]}]})"),
            "loop-nest schedules");
  EXPECT_EQ(arm_of_trace(R"({"schema_version":1,"steps":[{"kind":"tensorize","intrinsic":"avx512_fma_f32",)"
                         R"("mapping":4,"schema_version":1}]})"),
            "avx512_fma_f32 mapping #4");
  EXPECT_EQ(arm_of_trace("{not json"), "unreadable trace");
}

// A database of one gemm task with records of two strategies, failures among them.
std::string make_db(const ScratchDir& dir, const std::string& name) {
  const std::string path = dir.file("r.db");
  Database db = Database::open(path);
  const std::string spec = canonical_spec(op_from_cli("gemm:M=16,N=16,K=16"));
  const std::int64_t task = db.get_or_create_task(name, spec, "x86-avx2").id;
  auto add = [&](const std::string& strategy, std::int64_t trial, Status st, double s, const std::string& err,
                 nlohmann::json features) {
    Record r;
    r.task_id = task;
    r.trace = R"({"schema_version":1,"steps":[]})";
    r.trace_hash = strategy + std::to_string(trial);
    r.status = st;
    r.error = err;
    r.median_s = s;
    r.times_s = {s};
    r.strategy = strategy;
    r.trial = trial;
    r.features = std::move(features);
    r.created_at = "2026-01-01T00:00:" + std::string(trial < 10 ? "0" : "") + std::to_string(trial) + ".000Z";
    db.insert(r);
  };
  add("random", 0, Status::ok, 2e-6, "", nullptr);
  add("random", 1, Status::compile_error, 0, "cc: <error>\nsecond line", nullptr);
  add("random", 2, Status::ok, 1e-6, "", nullptr);
  add("ml2", 3, Status::ok, 4e-6, "", {{"ml2", {{"p", 0.5}, {"a", 0.7}, {"v", 0.9}, {"v_cut", 0.65}}}});
  add("ml2", 4, Status::timeout, 0, "timed out", {{"ml2", {{"p", 0.1}, {"v", 0.2}, {"v_cut", 0.65}}}});
  add("ml2", 5, Status::ok, 3e-6, "", nullptr);
  add(kConfirmStrategy, 6, Status::ok, 1e-6, "", nullptr);
  return path;
}

TEST(ReportData, GathersCurvesPerStrategyStatusesAndPredictions) {
  ScratchDir dir;
  const auto tasks = gather_tasks({make_db(dir, "g")}, {});
  ASSERT_EQ(tasks.size(), 1u);
  const TaskData& t = tasks[0];
  EXPECT_TRUE(t.have_op);
  EXPECT_EQ(t.metric, "GFLOP/s");
  EXPECT_EQ(t.trials, 6);
  EXPECT_EQ(t.confirmations, 1);
  ASSERT_EQ(t.runs.size(), 2u);  // ml2 and random; the confirmation is not a run
  const RunCurve& random = t.runs[1].label == "random" ? t.runs[1] : t.runs[0];
  ASSERT_EQ(random.by_trial.size(), 2u);  // trial 0, then the improvement at trial 2
  EXPECT_DOUBLE_EQ(random.by_trial[1].x, 2);
  EXPECT_NEAR(random.by_trial[1].y, 2.0 * 16 * 16 * 16 / 1e-6 / 1e9, 1e-9);
  EXPECT_DOUBLE_EQ(random.by_time[1].x, 2);  // seconds after the run's first record
  EXPECT_NEAR(t.best, 8.192, 1e-9);
  for (const auto& s : t.statuses) {
    if (s.status == "compile_error") {
      EXPECT_EQ(s.count, 1);
      ASSERT_EQ(s.examples.size(), 1u);
      EXPECT_EQ(s.examples[0], "trial 1: cc: <error> ...");  // first line; escaped when shown
    }
    if (s.status == "wrong_result") {
      EXPECT_EQ(s.count, 0);  // listed even when none
    }
  }
  EXPECT_EQ(t.ml2.p.size(), 1u);  // only ok records pair a prediction with a measurement
  EXPECT_EQ(t.ml2.a.size(), 1u);
  EXPECT_EQ(t.ml2.v_count, 2);
  EXPECT_EQ(t.ml2.v_valid_ok, 1);
  EXPECT_EQ(t.ml2.v_invalid_failed, 1);
  EXPECT_TRUE(t.arms.empty());  // not a mapping space
}

TEST(ReportData, SelectsTasksByNameIdOrSpec) {
  ScratchDir dir;
  const std::string db = make_db(dir, "mine");
  EXPECT_EQ(gather_tasks({db}, {"mine"}).size(), 1u);
  EXPECT_EQ(gather_tasks({db}, {"1"}).size(), 1u);
  EXPECT_EQ(gather_tasks({db}, {"gemm:M=16,N=16,K=16"}).size(), 1u);
  EXPECT_EQ(gather_tasks({db}, {"other"}).size(), 0u);
}

TEST(ReportPage, HostileNamesAndErrorsAreEscapedAndEmptyDataSaysSo) {
  ScratchDir dir;
  ReportInput in;
  in.db_paths = {make_db(dir, "<img src=x onerror=alert(1)>")};
  in.tasks = gather_tasks(in.db_paths, {});
  in.command = "attune report --db '<x>'";
  const std::string page = render_report(in);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(page.find("cc: &lt;error&gt;"), std::string::npos);
  EXPECT_NE(page.find("id=\"selfcheck\""), std::string::npos);
  EXPECT_NE(page.find("no data: no bench file given"), std::string::npos);

  ReportInput empty;
  const std::string none = render_report(empty);
  EXPECT_NE(none.find("no data: the database has no tuning tasks"), std::string::npos);
  EXPECT_EQ(none.find("class=\"task\""), std::string::npos);
}

TEST(ReportBench, MissingOrMalformedFilesAreOneLineErrors) {
  ScratchDir dir;
  try {
    read_bench_files({dir.file("missing.jsonl")});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.jsonl: no such file"), std::string::npos);
  }
  std::ofstream(dir.file("bad.jsonl")) << "{\"kind\":\"attune-bench.row\"}\n\n[1,2]\n";
  try {
    read_bench_files({dir.file("bad.jsonl")});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.jsonl:3: not a bench result"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  std::ofstream(dir.file("ok.jsonl")) << R"({"kind":"attune-bench.machine","threads":1,"peak_gflops":100})"
                                      << "\n"
                                      << R"({"kind":"attune-bench.row","threads":1,"name":"g<1>","gflops":)"
                                      << R"({"attune":90,"openblas":60}})"
                                      << "\n";
  const BenchData b = read_bench_files({dir.file("ok.jsonl")});
  EXPECT_EQ(b.of_kind("attune-bench.row").size(), 1u);
  ReportInput in;
  in.bench = b;
  const std::string page = render_report(in);
  EXPECT_NE(page.find("x1.5"), std::string::npos);  // attune over OpenBLAS, on its bar
  EXPECT_NE(page.find("g&lt;1&gt;"), std::string::npos);
  EXPECT_NE(page.find("no data: no task has a verified kernel"), std::string::npos);  // no task: no roofline
}

TEST(ReportBench, ModelBenchAndProfilesBeforeAndAfterTuning) {
  ScratchDir dir;
  std::ofstream(dir.file("m.jsonl"))
      << R"({"kind":"model-bench.row","model":"resnet50","threads":1,"seconds":{"attune":0.02,"onnxruntime":0.03}})"
      << "\n"
      << R"({"kind":"model-profile","model":"m/r.onnx","kernels":2,"tuned":0,"tasks":[{"task":0,"label":"Conv",)"
      << R"("ms":3},{"task":1,"label":"Gemm","ms":1}]})"
      << "\n"
      << R"({"kind":"model-profile","model":"m/r.onnx","kernels":2,"tuned":2,"tasks":[{"task":0,"label":"Conv",)"
      << R"("ms":1},{"task":1,"label":"Gemm","ms":1}]})"
      << "\n";
  ReportInput in;
  in.bench = read_bench_files({dir.file("m.jsonl")});
  const std::string page = render_report(in);
  EXPECT_NE(page.find("data-chart=\"model-bench\""), std::string::npos);
  EXPECT_NE(page.find(">x1.5<"), std::string::npos);  // attune's speed over ONNX Runtime
  EXPECT_NE(page.find("data-chart=\"model-profile\""), std::string::npos);
  EXPECT_NE(page.find("0/2 tuned: r.onnx"), std::string::npos);
  EXPECT_NE(page.find("2/2 tuned: r.onnx"), std::string::npos);
  EXPECT_NE(page.find(">75.0%<"), std::string::npos);  // Conv's share before tuning
  EXPECT_NE(page.find(">50.0%<"), std::string::npos);  // and after
}

}  // namespace
}  // namespace attune::report
