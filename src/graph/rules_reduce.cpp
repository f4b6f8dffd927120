// rules_reduce.cpp — Softmax, LayerNormalization, BatchNormalization, the Reduce* ops and
// pooling (op_rules.hpp). Reductions write statements (`max=`, `+=`, `mean=`) into
// intermediates; the elementwise tails (normalise, scale) stay expressions.
#include <functional>

#include "graph/conv_geometry.hpp"
#include "graph/op_rules.hpp"
#include "ir/access.hpp"
#include "ir/error.hpp"
#include "ir/template_params.hpp"

namespace attune::graph {

namespace {

using Axes = std::vector<bool>;  // per input dimension: reduced or not

// OUT[kept] <op> value(full index) over the reduced axes; returns a reader that takes a full
// index (of the input's rank) and reads OUT at its kept dimensions. Its shape keeps reduced
// dimensions as 1.
Operand reduce(TaskWriter& w, const Shape& in, const Axes& axes, const std::string& op, const ElemFn& value) {
  Shape kept, keepdims = in;
  for (std::size_t k = 0; k < in.size(); ++k) {
    if (axes[k]) keepdims[k] = 1;
    else kept.push_back(in[k]);
  }
  const Index sv = w.vars(kept.size(), 'v'), rv = w.vars(in.size() - kept.size(), 'r');
  Index full;
  for (std::size_t k = 0, s = 0, r = 0; k < in.size(); ++k) {
    full.push_back(axes[k] ? rv[r] : sv[s]);
    w.extent(full.back(), in[k]);
    if (axes[k]) ++r;
    else ++s;
  }
  const std::string out = w.local(kept);
  w.statement(out, sv, op, value(full));
  return {[out, axes, rank = kept.size()](const Index& i) {
            if (rank == 0) return out + "[0]";
            std::string s = out + "[";
            bool first = true;
            for (std::size_t k = 0; k < axes.size(); ++k)
              if (!axes[k]) s += (first ? "" : ", ") + i[k], first = false;
            return s + "]";
          },
          keepdims, "", false, std::nullopt};
}

Axes from(std::size_t rank, std::int64_t first) {  // axes [first, rank)
  Axes a(rank, false);
  for (std::size_t k = static_cast<std::size_t>(first); k < rank; ++k) a[k] = true;
  return a;
}

void infer_same(Graph& g, int n) {
  g.out_mut(n).shape = g.in(n, 0).shape;
  g.out_mut(n).type = ElemType::f32;
}

Operand lower_softmax(TaskWriter& w, const Graph& g, int n, const std::vector<Operand>& in, bool log) {
  const Shape& s = in[0].shape;
  const std::int64_t axis = normalize_axis(g, n, g.attr_int(n, "axis", g.opset >= 13 ? -1 : 1), s.size());
  // Before opset 13 the input was flattened to 2-D at `axis`: every later axis is reduced.
  Axes axes(s.size(), false);
  if (g.opset >= 13) axes[axis] = true;
  else axes = from(s.size(), axis);
  const ElemFn x = in[0].at;
  const Operand m = reduce(w, s, axes, "max=", x);
  const Operand sum = reduce(w, s, axes, "+=", [x, m](const Index& i) { return "exp(" + x(i) + " - " + m.at(i) + ")"; });
  return {[x, m, sum, log](const Index& i) {
            if (log) return "(" + x(i) + " - " + m.at(i) + " - log(" + sum.at(i) + "))";
            return "(exp(" + x(i) + " - " + m.at(i) + ") / " + sum.at(i) + ")";
          },
          s, "", false, std::nullopt};
}

Operand lower_layernorm(TaskWriter& w, const Graph& g, int n, const std::vector<Operand>& in) {
  const Shape& s = in[0].shape;
  const std::int64_t axis = normalize_axis(g, n, g.attr_int(n, "axis", -1), s.size());
  const std::string eps = ir::spec_number(g.attr_real(n, "epsilon", 1e-5));
  const Axes axes = from(s.size(), axis);
  const ElemFn x = in[0].at;
  const Operand mu = reduce(w, s, axes, "mean=", x);
  const Operand var = reduce(w, s, axes, "mean=", [x, mu](const Index& i) {
    const std::string d = "(" + x(i) + " - " + mu.at(i) + ")";
    return d + " * " + d;
  });
  const Operand scale = broadcast_to(in[1], s);
  const std::optional<Operand> bias = in.size() > 2 && in[2].at ? std::optional(broadcast_to(in[2], s)) : std::nullopt;
  return {[x, mu, var, scale, bias, eps](const Index& i) {
            std::string v = "(" + x(i) + " - " + mu.at(i) + ") * rsqrt(" + var.at(i) + " + " + eps + ") * " + scale.at(i);
            return bias ? "(" + v + " + " + bias->at(i) + ")" : "(" + v + ")";
          },
          s, "", false, std::nullopt};
}

// Inference batch norm: (x - mean) * scale / sqrt(var + eps) + B, per channel (axis 1).
Operand lower_batchnorm(TaskWriter&, const Graph& g, int n, const std::vector<Operand>& in) {
  const Shape& s = in[0].shape;
  const std::string eps = ir::spec_number(g.attr_real(n, "epsilon", 1e-5));
  auto channel = [](const Operand& o) { return [at = o.at](const Index& i) { return at({i[1]}); }; };
  return {[x = in[0].at, scale = channel(in[1]), b = channel(in[2]), mean = channel(in[3]), var = channel(in[4]),
           eps](const Index& i) {
            return "((" + x(i) + " - " + mean(i) + ") * " + scale(i) + " * rsqrt(" + var(i) + " + " + eps + ") + " +
                   b(i) + ")";
          },
          s, "", false, std::nullopt};
}

void infer_batchnorm(Graph& g, int n) {
  const Shape& s = g.in(n, 0).shape;
  if (s.size() < 2) node_error(g, n, "input needs a channel axis");
  for (std::size_t k = 1; k <= 4; ++k)
    if (g.in(n, k).shape != Shape{s[1]}) node_error(g, n, "input " + std::to_string(k) + " must have shape [" + std::to_string(s[1]) + "]");
  if (g.attr_int(n, "training_mode", 0)) node_error(g, n, "training_mode = 1 is not supported (inference only)");
  infer_same(g, n);
}

// The axes a Reduce* node reduces: attribute (before opset 18) or input 1; empty means all,
// unless noop_with_empty_axes.
Axes reduce_axes(const Graph& g, int n) {
  const std::size_t rank = g.in(n, 0).shape.size();
  std::vector<std::int64_t> list = g.has_input(n, 1) ? constant_ints(g, n, 1) : g.attr_ints(n, "axes", {});
  Axes a(rank, list.empty() && !g.attr_int(n, "noop_with_empty_axes", 0));
  for (auto x : list) a[normalize_axis(g, n, x, rank)] = true;
  return a;
}

void infer_reduce(Graph& g, int n) {
  const Shape& s = g.in(n, 0).shape;
  const Axes a = reduce_axes(g, n);
  const bool keep = g.attr_int(n, "keepdims", 1) != 0;
  Shape out;
  for (std::size_t k = 0; k < s.size(); ++k)
    if (!a[k]) out.push_back(s[k]);
    else if (keep) out.push_back(1);
  g.out_mut(n).shape = out;
  g.out_mut(n).type = ElemType::f32;
}

Operand lower_reduce(TaskWriter& w, const Graph& g, int n, const std::vector<Operand>& in, const std::string& op) {
  const Axes a = reduce_axes(g, n);
  const Operand r = reduce(w, in[0].shape, a, op, in[0].at);
  const bool keep = g.attr_int(n, "keepdims", 1) != 0;
  // The reader takes an index of the output's rank; without keepdims the reduced axes are gone.
  return {[r, a, keep](const Index& i) {
            if (keep) return r.at(i);
            Index full;
            for (std::size_t k = 0, j = 0; k < a.size(); ++k) full.push_back(a[k] ? "0" : i[j++]);
            return r.at(full);
          },
          g.out(n).shape, "", false, std::nullopt};
}

void infer_pool(Graph& g, int n) {
  const auto win = windows(g, n, WindowKind::pool);
  Shape out{g.in(n, 0).shape[0], g.in(n, 0).shape[1]};
  for (const auto& a : win) out.push_back(a.out);
  g.out_mut(n).shape = out;
  g.out_mut(n).type = ElemType::f32;
  if (g.nodes[n].outputs.size() > 1 && !g.values[g.nodes[n].outputs[1]].consumers.empty())
    node_error(g, n, "the Indices output of MaxPool is not supported");
}

// How many taps of each output position's window lie inside the input (or inside the padded
// input, with count_include_pad): AveragePool's divisors, computed once on the host.
HostTensor pool_counts(const std::vector<Window>& win, bool include_pad) {
  Shape shape;
  for (const auto& a : win) shape.push_back(a.out);
  std::vector<float> c(element_count(shape));
  for (std::int64_t flat = 0; flat < static_cast<std::int64_t>(c.size()); ++flat) {
    std::int64_t rest = flat, count = 1;
    for (std::size_t a = win.size(); a-- > 0;) {
      const std::int64_t o = rest % win[a].out;
      rest /= win[a].out;
      const std::int64_t lo = include_pad ? -win[a].pad_begin : 0, hi = include_pad ? win[a].in + win[a].pad_end : win[a].in;
      std::int64_t inside = 0;
      for (std::int64_t t = 0; t < win[a].kernel; ++t) {
        const std::int64_t x = o * win[a].stride + t * win[a].dilation - win[a].pad_begin;
        inside += x >= lo && x < hi;
      }
      count *= inside;
    }
    c[flat] = static_cast<float>(count);
  }
  return HostTensor::floats(shape, std::move(c));
}

Operand lower_pool(TaskWriter& w, const Graph& g, int n, const std::vector<Operand>& in, bool max) {
  const auto win = windows(g, n, WindowKind::pool);
  const Shape out = g.out(n).shape;  // a copy: w.constant() below adds graph values
  const Operand X = w.materialize(in[0]);  // out-of-range reads must mean padding
  const Index o = w.vars(out.size(), 'v'), t = w.vars(win.size(), 'r');
  Index x{o[0], o[1]};
  for (std::size_t k = 0; k < out.size(); ++k) w.extent(o[k], out[k]);
  for (std::size_t a = 0; a < win.size(); ++a) {
    w.extent(t[a], win[a].kernel);
    x.push_back((AffineExpr::var(o[2 + a], win[a].stride) + AffineExpr::var(t[a], win[a].dilation) +
                 AffineExpr::constant_of(-win[a].pad_begin)).str());
  }
  const std::vector<int> layout = g.out(n).layout;
  const std::string acc = w.local(out, layout);
  w.statement(acc, o, max ? "max=" : "+=", X.at(x), layout);
  if (max) return TaskWriter::read(acc, out, layout);
  const Operand cnt = w.constant(pool_counts(win, g.attr_int(n, "count_include_pad", 0) != 0), "pool counts");
  const Operand sum = TaskWriter::read(acc, out, layout);
  return {[sum, cnt](const Index& i) { return "(" + sum.at(i) + " / " + cnt.at(Index(i.begin() + 2, i.end())) + ")"; },
          out, "", false, std::nullopt};
}

void infer_global_pool(Graph& g, int n) {
  Shape out = g.in(n, 0).shape;
  if (out.size() < 3) node_error(g, n, "input needs spatial axes");
  for (std::size_t k = 2; k < out.size(); ++k) out[k] = 1;
  g.out_mut(n).shape = out;
  g.out_mut(n).type = ElemType::f32;
}

Operand lower_global_pool(TaskWriter& w, const Graph&, int, const std::vector<Operand>& in, const std::string& op) {
  return reduce(w, in[0].shape, from(in[0].shape.size(), 2), op, in[0].at);
}

#define LOWER(BODY) [](TaskWriter& w, const Graph& g, int n, const std::vector<Operand>& in) { return BODY; }

}  // namespace

const std::vector<NamedRule>& reduction_rules() {
  static const std::vector<NamedRule> rules = {
      {"Softmax", {OpClass::reduction, infer_same, nullptr, LOWER(lower_softmax(w, g, n, in, false))}},
      {"LogSoftmax", {OpClass::reduction, infer_same, nullptr, LOWER(lower_softmax(w, g, n, in, true))}},
      {"LayerNormalization", {OpClass::reduction, infer_same, nullptr, lower_layernorm}},
      {"BatchNormalization", {OpClass::elementwise, infer_batchnorm, nullptr, lower_batchnorm}},
      {"ReduceMean", {OpClass::reduction, infer_reduce, nullptr, LOWER(lower_reduce(w, g, n, in, "mean="))}},
      {"ReduceSum", {OpClass::reduction, infer_reduce, nullptr, LOWER(lower_reduce(w, g, n, in, "+="))}},
      {"ReduceMax", {OpClass::reduction, infer_reduce, nullptr, LOWER(lower_reduce(w, g, n, in, "max="))}},
      {"ReduceMin", {OpClass::reduction, infer_reduce, nullptr, LOWER(lower_reduce(w, g, n, in, "min="))}},
      {"MaxPool", {OpClass::reduction, infer_pool, nullptr, LOWER(lower_pool(w, g, n, in, true))}},
      {"AveragePool", {OpClass::reduction, infer_pool, nullptr, LOWER(lower_pool(w, g, n, in, false))}},
      {"GlobalAveragePool", {OpClass::reduction, infer_global_pool, nullptr, LOWER(lower_global_pool(w, g, n, in, "mean="))}},
      {"GlobalMaxPool", {OpClass::reduction, infer_global_pool, nullptr, LOWER(lower_global_pool(w, g, n, in, "max="))}},
  };
  return rules;
}

}  // namespace attune::graph
