// conv_geometry.cpp — window arithmetic (conv_geometry.hpp), following the ONNX operator docs.
#include "graph/conv_geometry.hpp"

#include "ir/error.hpp"

namespace attune::graph {

namespace {

std::vector<std::int64_t> per_axis(const Graph& g, int n, const char* name, std::size_t k, std::int64_t fallback) {
  auto v = g.attr_ints(n, name, std::vector<std::int64_t>(k, fallback));
  if (v.size() != k) node_error(g, n, std::string(name) + " has " + std::to_string(v.size()) + " entries for " + std::to_string(k) + " spatial axes");
  for (auto x : v)
    if (x < (std::string(name) == "output_padding" ? 0 : 1) || x > (1 << 20)) node_error(g, n, std::string(name) + " has a value out of range");
  return v;
}

// SAME_UPPER puts the odd padding at the end, SAME_LOWER at the beginning.
void same_pads(Window& w, std::int64_t total, bool upper) {
  total = std::max<std::int64_t>(total, 0);
  w.pad_begin = upper ? total / 2 : total - total / 2;
  w.pad_end = total - w.pad_begin;
}

}  // namespace

std::vector<Window> windows(const Graph& g, int n, WindowKind kind) {
  const Shape& x = g.in(n, 0).shape;
  if (x.size() < 3 || x.size() > 5) node_error(g, n, "input of rank " + std::to_string(x.size()) + " (1 to 3 spatial axes are supported)");
  const std::size_t k = x.size() - 2;
  std::vector<std::int64_t> kernel = g.attr_ints(n, "kernel_shape", {});
  if (kernel.empty() && kind != WindowKind::pool) {
    const Shape& w = g.in(n, 1).shape;
    if (w.size() != x.size()) node_error(g, n, "weight of rank " + std::to_string(w.size()) + " for an input of rank " + std::to_string(x.size()));
    kernel.assign(w.begin() + 2, w.end());
  }
  if (kernel.size() != k) node_error(g, n, "kernel_shape has " + std::to_string(kernel.size()) + " entries for " + std::to_string(k) + " spatial axes");
  const auto strides = per_axis(g, n, "strides", k, 1), dil = per_axis(g, n, "dilations", k, 1);
  auto pads = g.attr_ints(n, "pads", std::vector<std::int64_t>(2 * k, 0));
  if (pads.size() != 2 * k) node_error(g, n, "pads has " + std::to_string(pads.size()) + " entries, expected " + std::to_string(2 * k));
  for (auto p : pads)
    if (p < 0 || p > (1 << 20)) node_error(g, n, "pads has a value out of range");
  const std::string auto_pad = g.attr_text(n, "auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    node_error(g, n, "auto_pad '" + auto_pad.substr(0, 40) + "' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER");
  const bool ceil = g.attr_int(n, "ceil_mode", 0) != 0;
  const auto out_pad = kind == WindowKind::conv_transpose ? per_axis(g, n, "output_padding", k, 0) : std::vector<std::int64_t>(k, 0);
  const auto out_shape = g.attr_ints(n, "output_shape", {});
  std::vector<Window> r(k);
  for (std::size_t a = 0; a < k; ++a) {
    Window& w = r[a];
    w.in = x[2 + a], w.kernel = kernel[a], w.stride = strides[a], w.dilation = dil[a];
    if (w.kernel < 1) node_error(g, n, "kernel_shape has a value below 1");
    w.pad_begin = pads[a], w.pad_end = pads[k + a];
    if (auto_pad == "VALID") w.pad_begin = w.pad_end = 0;
    const std::int64_t span = (w.kernel - 1) * w.dilation + 1;
    if (kind == WindowKind::conv_transpose) {
      const std::int64_t full = w.stride * (w.in - 1) + out_pad[a] + span;
      if (!out_shape.empty()) {
        if (out_shape.size() != k) node_error(g, n, "output_shape has " + std::to_string(out_shape.size()) + " entries");
        const std::int64_t total = full - out_shape[a];
        if (total < 0) node_error(g, n, "output_shape is larger than the input can reach");
        if (auto_pad == "SAME_UPPER") same_pads(w, total, true);
        else same_pads(w, total, false);
      } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        same_pads(w, full - w.in * w.stride, auto_pad == "SAME_UPPER");
      }
      w.out = full - w.pad_begin - w.pad_end;
    } else {
      if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        const std::int64_t out = (w.in + w.stride - 1) / w.stride;
        same_pads(w, (out - 1) * w.stride + span - w.in, auto_pad == "SAME_UPPER");
      }
      const std::int64_t num = w.in + w.pad_begin + w.pad_end - span;
      if (num < 0) node_error(g, n, "the kernel is larger than the padded input");
      w.out = (ceil ? (num + w.stride - 1) / w.stride : num / w.stride) + 1;
      // ceil_mode: a last window that would start inside the end padding is dropped.
      if (ceil && (w.out - 1) * w.stride >= w.in + w.pad_begin) --w.out;
    }
    if (w.out < 1) node_error(g, n, "the output would be empty along spatial axis " + std::to_string(a));
  }
  return r;
}

}  // namespace attune::graph
