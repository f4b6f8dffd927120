// spec_stages.cpp — build_stages(): parsed statements checked against each other and assembled
// into a multi-stage Op (expr.hpp). What it refuses, each at the place it is written: a tensor
// written twice, a read of a tensor before (or in) the statement that writes it, an intermediate
// never read, a '=' statement over a variable that does not index its output, a reduction over
// no variable, operands of different types, and everything a contraction refuses (undeclared
// tensors, ranks, extents, output bounds, unused declarations).
#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "extent_inference.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "spec_parse_tree.hpp"

namespace attune::ir {

namespace {

void collect_reads(const PExpr& e, std::vector<const PAccess*>& out) {
  if (e.node.kind == Expr::Kind::load) out.push_back(&e.read);
  for (const auto& a : e.args) collect_reads(a, out);
}

void add_vars(const Access& a, std::vector<std::string>& order) {
  for (const auto& e : a.index)
    for (const auto& [v, c] : e.terms)
      if (std::find(order.begin(), order.end(), v) == order.end()) order.push_back(v);
}

bool contains(const std::vector<std::string>& xs, const std::string& x) {
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

std::string name_of(DType t) { return std::string(dtype_name(t)); }

// The type of a value; nullopt for a number, which takes the type of what it meets.
std::optional<DType> type_of(const ParsedSpec& spec, const PExpr& e) {
  const Expr& n = e.node;
  switch (n.kind) {
    case Expr::Kind::load: return spec.check_access(e.read).t.dtype;
    case Expr::Kind::constant: return std::nullopt;
    case Expr::Kind::cast: type_of(spec, e.args[0]); return n.cast_to;
    case Expr::Kind::unary: {
      auto t = type_of(spec, e.args[0]);
      if (t && !is_float(*t) && n.unary_fn != UnaryFn::neg && n.unary_fn != UnaryFn::abs)
        spec_error(e.pos, "'" + std::string(unary_fn_name(n.unary_fn)) + "' needs a floating-point value, got " +
                              name_of(*t) + "; convert it with f32(...)");
      return t;
    }
    case Expr::Kind::binary:
    case Expr::Kind::select: {
      const std::size_t first = n.kind == Expr::Kind::select ? 1 : 0;
      if (first) type_of(spec, e.args[0]);
      auto a = type_of(spec, e.args[first]), b = type_of(spec, e.args[first + 1]);
      if (a && b && *a != *b) {
        const std::string what = n.kind == Expr::Kind::select ? "select" : std::string(binary_fn_name(n.binary_fn));
        spec_error(e.pos, "'" + what + "' mixes " + name_of(*a) + " and " + name_of(*b) +
                              "; convert one side with a cast such as " + name_of(*a) + "(...)");
      }
      return a ? a : b;
    }
  }
  return std::nullopt;
}

// Where `var` is first written among the statement's reads (its output when it indexes that).
SrcPos use_of(const PStage& st, const std::vector<const PAccess*>& reads, const std::string& var) {
  for (const PAccess* r : reads)
    for (std::size_t d = 0; d < r->a.index.size(); ++d)
      if (r->a.index[d].uses(var)) return r->index_pos[d];
  return st.out.pos;
}

class StageBuilder {
 public:
  explicit StageBuilder(const ParsedSpec& spec) : spec_(spec) {}

  Op build() {
    if (spec_.stages.empty()) spec_error(spec_.end, "missing compute statement (such as C[m, n] += A[m, k] * B[k, n])");
    reads_.resize(spec_.stages.size());
    for (std::size_t k = 0; k < spec_.stages.size(); ++k) {
      collect_reads(spec_.stages[k].value, reads_[k]);
      note_writer(k);
    }
    for (std::size_t k = 0; k < spec_.stages.size(); ++k) check_reads(k);
    check_intermediates_read();
    for (const auto& st : spec_.stages) op_.stages.push_back(stage(st, reads_[&st - spec_.stages.data()]));
    check_declarations_used();
    assemble();
    return std::move(op_);
  }

 private:
  void note_writer(std::size_t k) {
    const PStage& st = spec_.stages[k];
    spec_.check_access(st.out);
    const std::string& t = st.out.a.tensor;
    if (auto it = writer_.find(t); it != writer_.end())
      spec_error(st.out.pos, "tensor '" + t + "' is written twice (first at " +
                                 at_str(spec_.stages[it->second].out.pos) +
                                 "); each tensor is written by one statement");
    for (std::size_t d = 0; d < st.out.a.index.size(); ++d)
      if (st.out.a.index[d].divisor != 1)
        spec_error(st.out.index_pos[d], "output index '" + st.out.a.index[d].str() + "' must not divide");
    writer_[t] = k;
  }

  void check_reads(std::size_t k) {
    for (const PAccess* r : reads_[k]) {
      spec_.check_access(*r);
      auto it = writer_.find(r->a.tensor);
      if (it == writer_.end()) continue;
      if (it->second == k)
        spec_error(r->pos, "the statement reads '" + r->a.tensor +
                               "', which it writes: a cycle (compute the value into another tensor first)");
      if (it->second > k)
        spec_error(r->pos, "'" + r->a.tensor + "' is read before the statement that writes it (at " +
                               at_str(spec_.stages[it->second].out.pos) + ")");
    }
  }

  void check_intermediates_read() {
    const std::string& last = spec_.stages.back().out.a.tensor;
    for (const auto& [t, k] : writer_) {
      if (t == last) continue;
      bool read = false;
      for (const auto& rs : reads_)
        for (const PAccess* r : rs) read = read || r->a.tensor == t;
      if (!read)
        spec_error(spec_.stages[k].out.pos, "intermediate '" + t +
                                                "' is written but never read (the op's output is the tensor the "
                                                "last statement writes, '" +
                                                last + "')");
    }
  }

  Stage stage(const PStage& st, const std::vector<const PAccess*>& reads) {
    std::vector<std::string> spatial, read_vars, reduced;
    add_vars(st.out.a, spatial);
    for (const PAccess* r : reads) add_vars(r->a, read_vars);
    for (const auto& v : read_vars)
      if (!contains(spatial, v)) reduced.push_back(v);
    if (st.reduce == Reduce::none && !reduced.empty())
      spec_error(use_of(st, reads, reduced[0]), "'" + reduced[0] + "' does not index the output " + st.out.a.str() +
                                                    ": a '=' statement cannot reduce (write +=, max=, min= or mean=)");
    if (st.reduce != Reduce::none && reduced.empty())
      spec_error(st.op_pos, "'" + std::string(reduce_name(st.reduce)) +
                                "' reduces over no variable: every variable of the statement indexes the output " +
                                st.out.a.str() + " (write '=' for an elementwise statement)");
    Stage s;
    s.out = st.out.a;
    s.reduce = st.reduce;
    s.value = st.value.to_expr();
    std::vector<Access> ins;
    for (const PAccess* r : reads) ins.push_back(r->a);
    __int128 domain = 1;
    for (const auto& v : spatial) s.vars.push_back({v, extent(st, ins, v), false});
    for (const auto& v : reduced) s.vars.push_back({v, extent(st, ins, v), true});
    for (const auto& v : s.vars) {
      used_vars_.push_back(v.name);
      domain *= v.extent;
      if (domain > kMaxDomain) spec_error(st.out.pos, "iteration domain too large (more than 2^62 points)");
    }
    const Tensor& out_t = spec_.tensor(s.out.tensor)->t;
    check_output_range(st.out, out_t, [&](const std::string& v) {
      for (const auto& iv : s.vars)
        if (iv.name == v) return iv.extent;
      return std::int64_t{1};
    });
    if (auto t = type_of(spec_, st.value); t && *t != out_t.dtype)
      spec_error(st.op_pos, "the statement stores " + name_of(*t) + " into " + name_of(out_t.dtype) + " '" +
                                out_t.name + "'; convert the value with " + name_of(out_t.dtype) + "(...)");
    return s;
  }

  std::int64_t extent(const PStage& st, const std::vector<Access>& ins, const std::string& v) {
    std::vector<Tensor> all;
    for (const auto& d : spec_.tensors) all.push_back(d.t);
    return variable_extent(spec_, all, st.out.a, ins, std::nullopt, v);
  }

  void check_declarations_used() {
    for (const auto& d : spec_.vars)
      if (!contains(used_vars_, d.name)) spec_error(d.pos, "variable '" + d.name + "' is declared but not used");
    for (const auto& d : spec_.tensors) {
      bool used = writer_.count(d.t.name) > 0;
      for (const auto& rs : reads_)
        for (const PAccess* r : rs) used = used || r->a.tensor == d.t.name;
      if (!used) spec_error(d.pos, "tensor '" + d.t.name + "' is declared but not used");
    }
  }

  void assemble() {
    op_.name = spec_.label.value_or("");
    const std::string& last = spec_.stages.back().out.a.tensor;
    for (const auto& d : spec_.tensors) {
      const bool intermediate = writer_.count(d.t.name) && d.t.name != last;
      (intermediate ? op_.locals : op_.tensors).push_back(d.t);
    }
    op_.output = spec_.stages.back().out.a;
  }

  const ParsedSpec& spec_;
  std::map<std::string, std::size_t> writer_;       // tensor -> the statement writing it
  std::vector<std::vector<const PAccess*>> reads_;  // per statement
  std::vector<std::string> used_vars_;
  Op op_;
};

}  // namespace

Op build_stages(const ParsedSpec& spec) { return StageBuilder(spec).build(); }

}  // namespace attune::ir
