// report/svg.hpp — the chart primitives of the report, as inline SVG (no script, no network).
//
// Every chart is one <svg class="chart" data-chart="KIND"> element; each series is one <path>
// (a line, a best-so-far staircase, or a cloud of dots drawn as zero-length round-capped
// segments, so that 10,000 measurements are one element, not 10,000) with class "series" and
// its label escaped in a data-label attribute. The page's self-check (page.cpp) measures these
// elements in the browser. Labels are untrusted text and are escaped here (html.hpp); points
// that are not finite (or not positive on a log axis) are left out.
#pragma once

#include <string>
#include <vector>

namespace attune::report {

struct Point {
  double x = 0, y = 0;
};

enum class SeriesStyle {
  line,  // straight segments through the points in order
  step,  // a staircase: each value holds until the next point's x (best-so-far curves)
  dots,  // one dot per point (all measured candidates, predicted against measured)
};

struct Series {
  std::string label;
  std::vector<Point> points;
  SeriesStyle style = SeriesStyle::line;
};

struct Axis {
  std::string label;
  bool log = false;
};

// Lines, staircases and dots on shared axes, with a legend.
struct XYChart {
  std::string kind;  // data-chart: what the chart shows ("best-vs-trials", ...)
  std::string title;
  Axis x, y;
  std::vector<Series> series;
  bool diagonal = false;  // draw y = x (predicted against measured)
};
std::string xy_chart(const XYChart& c);

// A roofline: the roofs min(peak, bandwidth x intensity) and one labelled point per kernel, on
// log-log axes (arithmetic intensity in FLOP/byte, GFLOP/s).
struct Roof {
  std::string label;     // "2 threads: 250 GFLOP/s, 40 GB/s"
  double peak_gflops;    // NaN: no compute roof
  double bandwidth_gbs;  // NaN: no memory roof
};
struct RooflinePoint {
  std::string label;
  double intensity = 0;  // FLOP per byte moved
  double gflops = 0;
};
struct RooflineChart {
  std::string title;
  std::vector<Roof> roofs;
  std::vector<RooflinePoint> points;
};
std::string roofline_chart(const RooflineChart& c);

// Grouped bars: one group per category (a workload), one bar per series (attune, each
// baseline), each bar with its note written above it (the ratio).
struct BarGroup {
  std::string label;
  std::vector<double> values;      // one per series; NaN: no bar
  std::vector<std::string> notes;  // one per series (may be empty)
};
struct BarChart {
  std::string kind;
  std::string title;
  std::string y_label;
  std::vector<std::string> series;
  std::vector<BarGroup> groups;
};
std::string bar_chart(const BarChart& c);

// One horizontal bar split into shares (of the budget, of the records, of the time), with a
// legend that gives each share's label, value and note.
struct Share {
  std::string label;
  double value = 0;
  std::string note;
};
std::string share_bar(const std::string& kind, const std::string& title, const std::vector<Share>& shares);

// The colour of series i, the same in every chart and legend.
const char* series_colour(std::size_t i);

}  // namespace attune::report
