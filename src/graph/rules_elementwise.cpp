// rules_elementwise.cpp — elementwise ONNX ops and Transpose (op_rules.hpp).
//
// Each lowers to an expression over its operands' readers, broadcast numpy-style, so that a
// chain of them inside a task is one statement. Integer constants (shape arithmetic) fold here.
#include <cmath>
#include <limits>

#include "graph/op_rules.hpp"
#include "ir/error.hpp"
#include "ir/template_params.hpp"

namespace attune::graph {

namespace {

// The broadcast shape of all inputs, with the element type of input `type_of` (-1: bool).
template <int type_of>
void infer_broadcast(Graph& g, int n) {
  const Shape shape = broadcast_shapes(g, n);
  Value& o = g.out_mut(n);
  o.shape = shape;
  o.type = type_of < 0 ? ElemType::boolean : g.in(n, type_of).type;
}

void infer_same(Graph& g, int n) {
  Value& o = g.out_mut(n);
  o.shape = g.in(n, 0).shape;
  o.type = g.in(n, 0).type;
}

void infer_cast(Graph& g, int n) {
  Value& o = g.out_mut(n);
  o.shape = g.in(n, 0).shape;
  const auto to = g.attr_int(n, "to", 1);
  o.type = to == 1 ? ElemType::f32 : to == 7 ? ElemType::i64 : to == 6 ? ElemType::i32 : to == 9 ? ElemType::boolean
                                                                                                : ElemType::f32;
  if (to != 1 && to != 6 && to != 7 && to != 9) node_error(g, n, "casts to element type " + std::to_string(to));
}

// The flat offset into `in` (broadcast to `out`) of flat output element `k`.
std::int64_t broadcast_offset(const Shape& in, const Shape& out, std::int64_t k) {
  std::int64_t off = 0, stride = 1;
  for (std::size_t d = out.size(); d-- > 0;) {
    const std::int64_t i = k % out[d];
    k /= out[d];
    const std::size_t lead = out.size() - in.size();
    if (d >= lead) {
      const std::int64_t e = in[d - lead];
      off += (e == 1 ? 0 : i) * stride;
      stride *= e;
    }
  }
  return off;
}

// Integer arithmetic on integer constants (the shape computations exporters leave behind).
std::optional<HostTensor> fold_integer(const Graph& g, int n) {
  const Node& node = g.nodes[n];
  for (int v : node.inputs)
    if (v >= 0 && !is_integer(g.values[v].type)) return std::nullopt;
  const Value& out = g.out(n);
  std::vector<std::int64_t> r(element_count(out.shape));
  auto arg = [&](std::size_t k, std::int64_t e) {
    const Value& v = g.in(n, k);
    return v.constant->integer(broadcast_offset(v.shape, out.shape, e));
  };
  for (std::int64_t e = 0; e < static_cast<std::int64_t>(r.size()); ++e) {
    const std::int64_t a = arg(0, e);
    const std::int64_t b = node.inputs.size() > 1 ? arg(1, e) : 0;
    bool overflow = false;
    if (node.op == "Add") overflow = __builtin_add_overflow(a, b, &r[e]);
    else if (node.op == "Sub") overflow = __builtin_sub_overflow(a, b, &r[e]);
    else if (node.op == "Mul") overflow = __builtin_mul_overflow(a, b, &r[e]);
    else if (node.op == "Div") {
      if (b == 0 || (b == -1 && a == std::numeric_limits<std::int64_t>::min()))
        node_error(g, n, "divides an integer constant by zero (or overflows)");
      r[e] = a / b;
    } else if (node.op == "Equal") r[e] = a == b;
    else if (node.op == "Less") r[e] = a < b;
    else if (node.op == "Greater") r[e] = a > b;
    else if (node.op == "Where") r[e] = a ? b : arg(2, e);
    else if (node.op == "Neg") overflow = __builtin_sub_overflow(std::int64_t{0}, a, &r[e]);
    else if (node.op == "Abs") overflow = __builtin_sub_overflow(std::int64_t{0}, a < 0 ? a : -a, &r[e]);
    else if (node.op == "Identity" || node.op == "Cast") r[e] = a;
    else return std::nullopt;
    if (overflow) node_error(g, n, "integer constant arithmetic overflows 64 bits");
  }
  if (out.type == ElemType::f32) {
    std::vector<float> f(r.begin(), r.end());
    return HostTensor::floats(out.shape, std::move(f));
  }
  return HostTensor::integers(out.type, out.shape, std::move(r));
}

// Identity and Dropout (inference) pass a constant through.
std::optional<HostTensor> fold_identity(const Graph& g, int n) { return g.in(n, 0).constant; }

Operand expression(const Shape& shape, ElemFn at) { return {std::move(at), shape, "", false, std::nullopt}; }

std::vector<Operand> broadcast_all(const Graph& g, int n, const std::vector<Operand>& in) {
  std::vector<Operand> r;
  for (const auto& o : in) r.push_back(o.at ? broadcast_to(o, g.out(n).shape) : o);
  return r;
}

Operand infix(const Graph& g, int n, const std::vector<Operand>& in, const std::string& op, bool boolean = false) {
  auto b = broadcast_all(g, n, in);
  Operand r = expression(g.out(n).shape, [a = b[0].at, c = b[1].at, op](const Index& i) {
    return "(" + a(i) + " " + op + " " + c(i) + ")";
  });
  r.boolean = boolean;
  return r;
}

Operand call(const Graph& g, int n, const Operand& x, const std::string& fn) {
  return expression(g.out(n).shape, [a = x.at, fn](const Index& i) { return fn + "(" + a(i) + ")"; });
}

// A scalar constant input (Clip's bounds, Pow's exponent); nullopt when absent.
std::optional<double> scalar_input(const Graph& g, int n, std::size_t k) {
  if (!g.has_input(n, k)) return std::nullopt;
  const Value& v = g.in(n, k);
  if (!v.constant || !v.constant->uniform()) node_error(g, n, "input " + std::to_string(k) + " must be a constant scalar");
  return v.constant->real(0);
}

// Add keeps a contraction's epilogue form while it adds a stored tensor (a bias, a residual) to
// the bare result; Relu while it follows nothing but that.
Operand lower_add(TaskWriter&, const Graph& g, int n, const std::vector<Operand>& in) {
  Operand r = infix(g, n, in, "+");
  for (int k : {0, 1}) {
    const Operand& acc = in[k];
    const Operand& other = in[1 - k];
    if (acc.epi && acc.epi->bias.empty() && !acc.epi->relu && acc.shape == r.shape && !other.stored.empty()) {
      r.epi = acc.epi;
      r.epi->bias = broadcast_to(other, r.shape).at(acc.epi->out_vars);
      break;
    }
  }
  return r;
}

Operand lower_relu(TaskWriter&, const Graph& g, int n, const std::vector<Operand>& in) {
  Operand r = call(g, n, in[0], "relu");
  if (in[0].epi && !in[0].epi->relu) {
    r.epi = in[0].epi;
    r.epi->relu = true;
  }
  return r;
}

Operand lower_clip(TaskWriter&, const Graph& g, int n, const std::vector<Operand>& in) {
  std::optional<double> lo = scalar_input(g, n, 1), hi = scalar_input(g, n, 2);
  if (g.has_attr(n, "min")) lo = g.attr_real(n, "min", 0);  // opset < 11 spelled them as attributes
  if (g.has_attr(n, "max")) hi = g.attr_real(n, "max", 0);
  return expression(g.out(n).shape, [x = in[0].at, lo, hi](const Index& i) {
    std::string v = x(i);
    if (lo && hi) return "clip(" + v + ", " + ir::spec_number(*lo) + ", " + ir::spec_number(*hi) + ")";
    if (lo) v = "max(" + v + ", " + ir::spec_number(*lo) + ")";
    if (hi) v = "min(" + v + ", " + ir::spec_number(*hi) + ")";
    return v;
  });
}

Operand lower_pow(TaskWriter&, const Graph& g, int n, const std::vector<Operand>& in) {
  const double e = *scalar_input(g, n, 1);
  const Operand x = broadcast_to(in[0], g.out(n).shape);
  auto with = [&](std::function<std::string(const std::string&)> f) {
    return expression(g.out(n).shape, [x = x.at, f](const Index& i) { return f(x(i)); });
  };
  if (e == 1) return with([](const std::string& v) { return v; });
  if (e == 2) return with([](const std::string& v) { return "(" + v + " * " + v + ")"; });
  if (e == 3) return with([](const std::string& v) { return "(" + v + " * " + v + " * " + v + ")"; });
  if (e == 0.5) return with([](const std::string& v) { return "sqrt(" + v + ")"; });
  if (e == -0.5) return with([](const std::string& v) { return "rsqrt(" + v + ")"; });
  if (e == -1) return with([](const std::string& v) { return "(1 / " + v + ")"; });
  node_error(g, n, "Pow with exponent " + ir::spec_number(e) + " is not supported (1, 2, 3, 0.5, -0.5, -1 are)");
}

Operand lower_where(TaskWriter&, const Graph& g, int n, const std::vector<Operand>& in) {
  auto b = broadcast_all(g, n, in);
  const bool cond_is_compare = in[0].boolean;
  return expression(g.out(n).shape, [c = b[0].at, x = b[1].at, y = b[2].at, cond_is_compare](const Index& i) {
    const std::string cond = cond_is_compare ? c(i) : "(" + c(i) + " != 0)";
    return "select(" + cond + ", " + x(i) + ", " + y(i) + ")";
  });
}

Operand lower_cast(TaskWriter&, const Graph& g, int n, const std::vector<Operand>& in) {
  if (g.out(n).type != ElemType::f32) node_error(g, n, "casts to an integer type at run time, which attune does not run");
  if (!in[0].boolean) return in[0];
  return expression(g.out(n).shape, [c = in[0].at](const Index& i) { return "select(" + c(i) + ", 1, 0)"; });
}

void infer_transpose(Graph& g, int n) {
  const Shape in = g.in(n, 0).shape;
  std::vector<std::int64_t> perm = g.attr_ints(n, "perm", {});
  if (perm.empty())
    for (std::size_t k = in.size(); k-- > 0;) perm.push_back(static_cast<std::int64_t>(k));
  if (perm.size() != in.size()) node_error(g, n, "perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(in.size()));
  std::vector<bool> seen(in.size());
  Shape out;
  for (auto p : perm) {
    if (p < 0 || p >= static_cast<std::int64_t>(in.size()) || seen[p]) node_error(g, n, "perm is not a permutation");
    seen[p] = true;
    out.push_back(in[p]);
  }
  g.out_mut(n).shape = out;
  g.out_mut(n).type = g.in(n, 0).type;
}

Operand lower_transpose(TaskWriter&, const Graph& g, int n, const std::vector<Operand>& in) {
  const std::size_t rank = in[0].shape.size();
  std::vector<std::int64_t> perm = g.attr_ints(n, "perm", {});
  if (perm.empty())
    for (std::size_t k = rank; k-- > 0;) perm.push_back(static_cast<std::int64_t>(k));
  return expression(g.out(n).shape, [x = in[0].at, perm](const Index& i) {
    Index src(perm.size());
    for (std::size_t k = 0; k < perm.size(); ++k) src[perm[k]] = i[k];
    return x(src);
  });
}

#define BINARY(NAME, OP)                                                                                        \
  {NAME, {OpClass::elementwise, infer_broadcast<0>, fold_integer,                                                  \
          [](TaskWriter&, const Graph& g, int n, const std::vector<Operand>& in) { return infix(g, n, in, OP); }}}
#define COMPARE(NAME, OP)                                                                                       \
  {NAME, {OpClass::elementwise, infer_broadcast<-1>, fold_integer,                                                    \
          [](TaskWriter&, const Graph& g, int n, const std::vector<Operand>& in) { return infix(g, n, in, OP, true); }}}
#define UNARY(NAME, FN)                                                                                         \
  {NAME, {OpClass::elementwise, infer_same, fold_integer,                                                       \
          [](TaskWriter&, const Graph& g, int n, const std::vector<Operand>& in) { return call(g, n, in[0], FN); }}}

}  // namespace

const std::vector<NamedRule>& elementwise_rules() {
  static const std::vector<NamedRule> rules = {
      {"Add", {OpClass::elementwise, infer_broadcast<0>, fold_integer, lower_add}},
      BINARY("Sub", "-"),
      BINARY("Mul", "*"),
      BINARY("Div", "/"),
      COMPARE("Equal", "=="),
      COMPARE("Less", "<"),
      COMPARE("Greater", ">"),
      COMPARE("LessOrEqual", "<="),
      COMPARE("GreaterOrEqual", ">="),
      UNARY("Sqrt", "sqrt"),
      UNARY("Erf", "erf"),
      UNARY("Tanh", "tanh"),
      UNARY("Exp", "exp"),
      UNARY("Log", "log"),
      UNARY("Abs", "abs"),
      UNARY("Neg", "neg"),
      UNARY("Sigmoid", "sigmoid"),
      {"Relu", {OpClass::elementwise, infer_same, fold_integer, lower_relu}},
      {"Clip", {OpClass::elementwise, infer_same, nullptr, lower_clip}},
      {"Pow", {OpClass::elementwise, infer_broadcast<0>, nullptr, lower_pow}},
      {"Where", {OpClass::elementwise, infer_broadcast<1>, fold_integer, lower_where}},
      {"Cast", {OpClass::elementwise, infer_cast, fold_integer, lower_cast}},
      {"Identity", {OpClass::elementwise, infer_same, fold_identity,
                    [](TaskWriter&, const Graph&, int, const std::vector<Operand>& in) { return in[0]; }}},
      {"Dropout", {OpClass::elementwise, infer_same, fold_identity,
                   [](TaskWriter&, const Graph&, int, const std::vector<Operand>& in) { return in[0]; }}},
      {"Transpose", {OpClass::elementwise, infer_transpose, nullptr, lower_transpose}},
  };
  return rules;
}

}  // namespace attune::graph
