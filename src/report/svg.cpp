// report/svg.cpp — chart primitives (svg.hpp): axes, ticks, legends, and the four chart kinds.
#include "report/svg.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/html.hpp"

namespace attune::report {

namespace {

// Legend labels are cut to fit the legend's width: 150 px beside line charts, 200 beside bars, 240 beside a roofline.
constexpr std::size_t kNarrowLegend = 26, kWideLegend = 36, kRoofLegend = 42;

// Colour-blind-safe (Okabe-Ito), then greys.
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                    "#56B4E9", "#000000", "#F0E442", "#777777", "#AAAAAA"};

std::string px(double v) { return fixed(v, 1); }

std::string text(double x, double y, const std::string& escaped, const std::string& attrs = "") {
  return "<text x=\"" + px(x) + "\" y=\"" + px(y) + "\"" + (attrs.empty() ? "" : " " + attrs) + ">" + escaped +
         "</text>\n";
}

std::string open_svg(const std::string& kind, const std::string& title, int w, int h) {
  return "<svg class=\"chart\" data-chart=\"" + html_escape(kind) + "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         std::to_string(w) + "\" height=\"" + std::to_string(h) + "\" viewBox=\"0 0 " + std::to_string(w) + " " +
         std::to_string(h) + "\" role=\"img\" aria-label=\"" + html_escape(title) + "\">\n" +
         text(8, 16, html_escape_cut(title, 100), "class=\"title\"");
}

// One axis' range and its mapping onto pixels [p0, p1].
struct Scale {
  double lo = 0, hi = 1;
  bool log = false;
  double p0 = 0, p1 = 1;
  double at(double v) const {
    const double a = log ? std::log10(v) : v, l = log ? std::log10(lo) : lo, h = log ? std::log10(hi) : hi;
    return p0 + (a - l) / (h - l) * (p1 - p0);
  }
  bool admits(double v) const { return std::isfinite(v) && (!log || v > 0); }
};

// The range of `values` (those the scale admits), widened to something drawable: a log scale to
// whole decades, a linear one from zero where all values are positive, with 5% headroom.
Scale fit(const std::vector<double>& values, bool log, bool from_zero) {
  Scale s;
  s.log = log;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : values)
    if (s.admits(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!(lo <= hi)) {  // nothing to show: an empty frame
    s.lo = log ? 1 : 0;
    s.hi = log ? 10 : 1;
    return s;
  }
  if (log) {
    s.lo = std::pow(10, std::floor(std::log10(lo)));
    s.hi = std::pow(10, std::ceil(std::log10(hi)));
    if (s.hi <= s.lo) s.hi = s.lo * 10;
    return s;
  }
  if (from_zero && lo > 0) lo = 0;
  if (hi == lo) hi = lo + (lo == 0 ? 1 : std::abs(lo) * 0.1);
  s.lo = lo;
  s.hi = hi + (hi - lo) * 0.05;
  return s;
}

// Tick values: 1-2-5 steps on a linear scale, decades (and 2, 5 within them when the range is
// under three decades) on a log scale.
std::vector<double> ticks(const Scale& s) {
  std::vector<double> t;
  if (s.log) {
    const int d0 = static_cast<int>(std::floor(std::log10(s.lo))), d1 = static_cast<int>(std::ceil(std::log10(s.hi)));
    for (int d = d0; d <= d1; ++d)
      for (double m : d1 - d0 < 3 ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
        const double v = m * std::pow(10, d);
        if (v >= s.lo * 0.999 && v <= s.hi * 1.001) t.push_back(v);
      }
    return t;
  }
  const double raw = (s.hi - s.lo) / 5, mag = std::pow(10, std::floor(std::log10(raw)));
  const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
  for (double v = std::ceil(s.lo / step) * step; v <= s.hi + step * 1e-9; v += step)
    t.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  return t;
}

// "1000" rather than "1e+03" for whole numbers a person reads at a glance.
std::string tick_label(double v) {
  if (std::abs(v) >= 1 && std::abs(v) < 1e7 && v == std::round(v)) return fixed(v, 0);
  return num(v, 3);
}

// The plot area's frame, grid, ticks and axis labels.
std::string axes(const Scale& x, const Scale& y, const std::string& xl, const std::string& yl) {
  std::string s = "<g class=\"axes\">\n";
  s += "<rect class=\"frame\" x=\"" + px(x.p0) + "\" y=\"" + px(y.p1) + "\" width=\"" + px(x.p1 - x.p0) +
       "\" height=\"" + px(y.p0 - y.p1) + "\"/>\n";
  for (double v : ticks(x)) {
    const double X = x.at(v);
    s += "<line class=\"grid\" x1=\"" + px(X) + "\" x2=\"" + px(X) + "\" y1=\"" + px(y.p1) + "\" y2=\"" + px(y.p0) +
         "\"/>\n";
    s += text(X, y.p0 + 14, tick_label(v), "class=\"tick\" text-anchor=\"middle\"");
  }
  for (double v : ticks(y)) {
    const double Y = y.at(v);
    s += "<line class=\"grid\" x1=\"" + px(x.p0) + "\" x2=\"" + px(x.p1) + "\" y1=\"" + px(Y) + "\" y2=\"" + px(Y) +
         "\"/>\n";
    s += text(x.p0 - 4, Y + 4, tick_label(v), "class=\"tick\" text-anchor=\"end\"");
  }
  s += text((x.p0 + x.p1) / 2, y.p0 + 32, html_escape(xl), "class=\"axis-label\" text-anchor=\"middle\"");
  s += "<text class=\"axis-label\" text-anchor=\"middle\" transform=\"translate(14 " + px((y.p0 + y.p1) / 2) +
       ") rotate(-90)\">" + html_escape(yl) + "</text>\n";
  return s + "</g>\n";
}

// A legend of coloured swatches at (x, y), one row per label.
std::string legend(double x, double y, const std::vector<std::string>& labels, std::size_t max_chars) {
  std::string s = "<g class=\"legend\">\n";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double Y = y + 16.0 * static_cast<double>(i);
    s += "<rect x=\"" + px(x) + "\" y=\"" + px(Y - 9) + "\" width=\"10\" height=\"10\" fill=\"" + series_colour(i) +
         "\"/>\n";
    s += text(x + 14, Y, html_escape_cut(labels[i], max_chars));
  }
  return s + "</g>\n";
}

// The path data of one series.
std::string path_data(const Series& se, const Scale& x, const Scale& y) {
  std::string d;
  d.reserve(se.points.size() * 16);
  bool first = true;
  double last_y = 0;
  for (const auto& p : se.points) {
    if (!x.admits(p.x) || !y.admits(p.y)) continue;
    const double X = x.at(p.x), Y = y.at(p.y);
    if (se.style == SeriesStyle::dots) {
      d += "M" + px(X) + " " + px(Y) + "h0";
    } else if (first) {
      d += "M" + px(X) + " " + px(Y);
    } else if (se.style == SeriesStyle::step) {
      d += "H" + px(X) + "V" + px(Y);
    } else {
      d += "L" + px(X) + " " + px(Y);
    }
    first = false;
    last_y = Y;
  }
  // A staircase runs on to the right edge: the best so far holds until the end of the run.
  if (se.style == SeriesStyle::step && !first) d += "H" + px(x.p1) + "V" + px(last_y);
  return d;
}

}  // namespace

const char* series_colour(std::size_t i) { return kPalette[i % std::size(kPalette)]; }

std::string xy_chart(const XYChart& c) {
  constexpr int kW = 580, kH = 300, kLegendW = 150;
  std::vector<double> xs, ys;
  for (const auto& se : c.series)
    for (const auto& p : se.points) xs.push_back(p.x), ys.push_back(p.y);
  Scale x = fit(xs, c.x.log, false), y = fit(ys, c.y.log, true);
  if (c.diagonal) {  // one range for both axes, so y = x is the diagonal
    const double lo = std::min(x.lo, y.lo), hi = std::max(x.hi, y.hi);
    x.lo = y.lo = lo;
    x.hi = y.hi = hi;
  }
  x.p0 = 64, x.p1 = kW - kLegendW - 10;
  y.p0 = kH - 44, y.p1 = 28;
  std::string s = open_svg(c.kind, c.title, kW, kH) + axes(x, y, c.x.label, c.y.label);
  if (c.diagonal)
    s += "<line class=\"diagonal\" x1=\"" + px(x.p0) + "\" y1=\"" + px(y.p0) + "\" x2=\"" + px(x.p1) + "\" y2=\"" +
         px(y.p1) + "\"/>\n";
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& se = c.series[i];
    labels.push_back(se.label);
    const bool dots = se.style == SeriesStyle::dots;
    s += "<path class=\"series" + std::string(dots ? " dots" : "") + "\" data-label=\"" + html_escape(se.label) +
         "\" stroke=\"" + series_colour(i) + "\" d=\"" + path_data(se, x, y) + "\"/>\n";
  }
  s += legend(kW - kLegendW + 4, 40, labels, kNarrowLegend);
  return s + "</svg>\n";
}

std::string roofline_chart(const RooflineChart& c) {
  constexpr int kW = 760, kH = 360, kLegendW = 240;
  std::vector<double> xs, ys;
  for (const auto& p : c.points) xs.push_back(p.intensity), ys.push_back(p.gflops);
  for (const auto& r : c.roofs) {
    ys.push_back(r.peak_gflops);
    if (std::isfinite(r.peak_gflops) && std::isfinite(r.bandwidth_gbs) && r.bandwidth_gbs > 0)
      xs.push_back(r.peak_gflops / r.bandwidth_gbs);  // the ridge point
  }
  Scale x = fit(xs, true, false), y = fit(ys, true, false);
  x.p0 = 64, x.p1 = kW - kLegendW - 10;
  y.p0 = kH - 44, y.p1 = 28;
  std::string s = open_svg("roofline", c.title, kW, kH) +
                  axes(x, y, "arithmetic intensity (FLOP per byte of inputs and output)", "GFLOP/s");
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < c.roofs.size(); ++i) {
    const Roof& r = c.roofs[i];
    labels.push_back(r.label);
    // min(peak, bandwidth * intensity) sampled along the axis (a straight line on log-log
    // axes up to the ridge, flat after it).
    std::string d;
    constexpr int kSamples = 64;
    for (int k = 0; k <= kSamples; ++k) {
      const double ai = x.lo * std::pow(x.hi / x.lo, static_cast<double>(k) / kSamples);
      double g = std::numeric_limits<double>::infinity();
      if (std::isfinite(r.peak_gflops)) g = r.peak_gflops;
      if (std::isfinite(r.bandwidth_gbs)) g = std::min(g, r.bandwidth_gbs * ai);
      if (!std::isfinite(g) || g <= 0) continue;
      const double Y = std::clamp(y.at(g), y.p1, y.p0);
      d += (d.empty() ? "M" : "L") + px(x.at(ai)) + " " + px(Y);
    }
    s += "<path class=\"series roof\" data-label=\"" + html_escape(r.label) + "\" stroke=\"" + series_colour(i) +
         "\" d=\"" + d + "\"/>\n";
  }
  s += "<g class=\"kernels\">\n";
  bool below = false;  // alternate labels above and below their points, so neighbours overlap less
  for (const auto& p : c.points) {
    if (!x.admits(p.intensity) || !y.admits(p.gflops)) continue;
    const double X = x.at(p.intensity), Y = y.at(p.gflops);
    s += "<circle class=\"kernel\" cx=\"" + px(X) + "\" cy=\"" + px(Y) + "\" r=\"4\"><title>" + html_escape(p.label) +
         ": " + num(p.gflops) + " GFLOP/s at " + num(p.intensity) + " FLOP/byte</title></circle>\n";
    s += text(X + 6, below ? Y + 14 : Y - 6, html_escape_cut(p.label, 24), "class=\"point-label\"");
    below = !below;
  }
  s += "</g>\n" + legend(kW - kLegendW + 4, 40, labels, kRoofLegend);
  return s + "</svg>\n";
}

std::string bar_chart(const BarChart& c) {
  const std::size_t n = std::max<std::size_t>(1, c.series.size());
  const double bar = 18, gap = 26, group_w = bar * static_cast<double>(n) + gap;
  const int kLegendW = 200, kH = 340;
  const int w = std::max(520, static_cast<int>(64 + group_w * static_cast<double>(c.groups.size()) + kLegendW + 20));
  std::vector<double> ys;
  for (const auto& g : c.groups) ys.insert(ys.end(), g.values.begin(), g.values.end());
  Scale y = fit(ys, false, true);
  y.hi *= 1.08;  // room for the notes above the tallest bar
  y.p0 = kH - 64, y.p1 = 28;
  Scale x;
  x.p0 = 64, x.p1 = w - kLegendW - 10;
  std::string s = open_svg(c.kind, c.title, w, kH);
  // The y axis only: the x axis carries the group labels.
  s += "<g class=\"axes\">\n<rect class=\"frame\" x=\"" + px(x.p0) + "\" y=\"" + px(y.p1) + "\" width=\"" +
       px(x.p1 - x.p0) + "\" height=\"" + px(y.p0 - y.p1) + "\"/>\n";
  for (double v : ticks(y)) {
    s += "<line class=\"grid\" x1=\"" + px(x.p0) + "\" x2=\"" + px(x.p1) + "\" y1=\"" + px(y.at(v)) + "\" y2=\"" +
         px(y.at(v)) + "\"/>\n";
    s += text(x.p0 - 4, y.at(v) + 4, tick_label(v), "class=\"tick\" text-anchor=\"end\"");
  }
  s += "<text class=\"axis-label\" text-anchor=\"middle\" transform=\"translate(14 " + px((y.p0 + y.p1) / 2) +
       ") rotate(-90)\">" + html_escape(c.y_label) + "</text>\n</g>\n";
  for (std::size_t g = 0; g < c.groups.size(); ++g) {
    const BarGroup& grp = c.groups[g];
    const double gx = x.p0 + gap / 2 + group_w * static_cast<double>(g);
    for (std::size_t i = 0; i < grp.values.size() && i < n; ++i) {
      const double v = grp.values[i];
      if (!std::isfinite(v) || v < 0) continue;
      const double X = gx + bar * static_cast<double>(i), Y = y.at(v);
      s += "<rect class=\"bar\" data-label=\"" + html_escape(i < c.series.size() ? c.series[i] : "") + "\" x=\"" +
           px(X) + "\" y=\"" + px(Y) + "\" width=\"" + px(bar - 2) + "\" height=\"" + px(std::max(0.5, y.p0 - Y)) +
           "\" fill=\"" + series_colour(i) + "\"><title>" + html_escape(grp.label) + ", " +
           html_escape(i < c.series.size() ? c.series[i] : "") + ": " + num(v) + "</title></rect>\n";
      if (i < grp.notes.size() && !grp.notes[i].empty())
        s += "<text class=\"bar-note\" text-anchor=\"start\" transform=\"translate(" + px(X + bar / 2 + 3) + " " +
             px(Y - 3) + ") rotate(-90)\">" + html_escape_cut(grp.notes[i], 16) + "</text>\n";
    }
    s += "<text class=\"tick\" text-anchor=\"end\" transform=\"translate(" + px(gx + group_w / 2 - gap / 2) + " " +
         px(y.p0 + 12) + ") rotate(-30)\">" + html_escape_cut(grp.label, 22) + "</text>\n";
  }
  s += legend(w - kLegendW + 4, 40, c.series, kWideLegend);
  return s + "</svg>\n";
}

std::string share_bar(const std::string& kind, const std::string& title, const std::vector<Share>& shares) {
  constexpr int kW = 720, kBarY = 28, kBarH = 22;
  double total = 0;
  for (const auto& sh : shares) total += std::max(0.0, sh.value);
  const int h = kBarY + kBarH + 12 + 16 * static_cast<int>(shares.size());
  std::string s = open_svg(kind, title, kW, h);
  double at = 8;
  const double full = kW - 16;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    const double v = std::max(0.0, shares[i].value), w = total > 0 ? full * v / total : 0;
    if (w > 0)
      s += "<rect class=\"share\" data-label=\"" + html_escape(shares[i].label) + "\" x=\"" + px(at) + "\" y=\"" +
           std::to_string(kBarY) + "\" width=\"" + px(w) + "\" height=\"" + std::to_string(kBarH) + "\" fill=\"" +
           series_colour(i) + "\"><title>" + html_escape(shares[i].label) + ": " + num(v) + "</title></rect>\n";
    at += w;
  }
  std::vector<std::string> labels;
  for (const auto& sh : shares)
    labels.push_back(sh.label + ": " + num(sh.value, 4) +
                     (total > 0 ? " (" + fixed(100 * sh.value / total, 1) + "%)" : "") +
                     (sh.note.empty() ? "" : ", " + sh.note));
  // Legend rows here are long (a mapping's name and its figures): no cut at kMaxLabel.
  s += "<g class=\"legend\">\n";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double Y = kBarY + kBarH + 20 + 16.0 * static_cast<double>(i);
    s += "<rect x=\"8\" y=\"" + px(Y - 9) + "\" width=\"10\" height=\"10\" fill=\"" + series_colour(i) + "\"/>\n";
    s += text(22, Y, html_escape_cut(labels[i], 110));
  }
  s += "</g>\n";
  return s + "</svg>\n";
}

}  // namespace attune::report
