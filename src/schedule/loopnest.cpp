// The loop-nest IR's constructors, look-ups and the initial nest of an Op.
#include "schedule/loopnest.hpp"

#include "ir/fold_epilogue.hpp"

#include "ir/error.hpp"

namespace attune {

std::string_view loop_kind_name(LoopKind k) {
  switch (k) {
    case LoopKind::serial: return "for";
    case LoopKind::parallel: return "parallel";
    case LoopKind::vectorized: return "vector";
    case LoopKind::unrolled: return "unroll";
  }
  return "?";
}

std::string_view stmt_kind_name(StmtKind k) {
  switch (k) {
    case StmtKind::init: return "init";
    case StmtKind::update: return "update";
    case StmtKind::copy: return "copy";
    case StmtKind::writeback: return "writeback";
    case StmtKind::epilogue: return "epilogue";
    case StmtKind::compute: return "compute";
  }
  return "?";
}

std::string Guard::str() const { return expr.str() + " < " + std::to_string(bound); }

Node Node::make_loop(std::string var, std::int64_t extent, std::vector<Node> body) {
  Node n;
  n.type = Type::loop;
  n.var = std::move(var);
  n.extent = extent;
  n.body = std::move(body);
  return n;
}

Node Node::make_stmt(Stmt s) {
  Node n;
  n.type = Type::stmt;
  n.stmt = std::move(s);
  return n;
}

std::int64_t BufferDecl::numel() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

const BufferDecl* LoopNest::buffer(std::string_view name) const {
  for (const auto& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

namespace {

template <class NodeT>
NodeT* find_in(std::vector<NodeT>& nodes, std::string_view var) {
  for (auto& n : nodes) {
    if (!n.is_loop()) continue;
    if (n.var == var) return &n;
    if (auto* f = find_in(n.body, var)) return f;
  }
  return nullptr;
}
template <class NodeT>
const NodeT* find_in(const std::vector<NodeT>& nodes, std::string_view var) {
  for (const auto& n : nodes) {
    if (!n.is_loop()) continue;
    if (n.var == var) return &n;
    if (const auto* f = find_in(n.body, var)) return f;
  }
  return nullptr;
}

bool path_in(const std::vector<Node>& nodes, std::string_view var, std::vector<std::string>& path) {
  for (const auto& n : nodes) {
    if (!n.is_loop()) continue;
    path.push_back(n.var);
    if (n.var == var || path_in(n.body, var, path)) return true;
    path.pop_back();
  }
  return false;
}

void names_in(const std::vector<Node>& nodes, std::vector<std::string>& out) {
  for (const auto& n : nodes) {
    if (!n.is_loop()) continue;
    out.push_back(n.var);
    names_in(n.body, out);
  }
}

// A perfect nest of loops `vars` (with `prefix` on each name) around one statement.
Node perfect_nest(const std::vector<IterVar>& vars, const std::string& prefix, Stmt s) {
  Node inner = Node::make_stmt(std::move(s));
  for (auto it = vars.rbegin(); it != vars.rend(); ++it)
    inner = Node::make_loop(prefix + it->name, it->extent, {std::move(inner)});
  return inner;
}

std::vector<IterVar> iter_vars(const Op& op, const std::vector<std::string>& names) {
  std::vector<IterVar> r;
  for (const auto& n : names) r.push_back(op.var(n));
  return r;
}

Access rename_vars(const Access& a, const std::string& prefix) {
  Access r = a;
  for (auto& e : r.index)
    for (auto& [v, c] : e.terms) v = prefix + v;
  return r;
}

BufferDecl buffer_of(const Tensor& t, BufferKind kind) {
  BufferDecl b;
  b.name = t.name;
  b.dtype = t.dtype;
  b.shape = t.shape;
  b.kind = kind;
  return b;
}

// Stage k: init (reductions), compute, and the scaling of mean=, each over the stage's
// variables prefixed as loopnest.hpp says.
void add_stage_nests(const Op& op, const Stage& st, std::size_t k, std::vector<Node>& body) {
  const std::string p = "s" + std::to_string(k) + ".";
  std::vector<IterVar> spatial;
  for (const auto& v : st.vars)
    if (!v.reduction) spatial.push_back(v);
  if (st.reduce != Reduce::none) {
    Stmt init;
    init.kind = StmtKind::init;
    init.dst = rename_vars(st.out, p + "init.");
    init.init_value = reduce_identity(st.reduce);
    body.push_back(perfect_nest(spatial, p + "init.", init));
  }
  Stmt c;
  c.kind = StmtKind::compute;
  c.dst = rename_vars(st.out, p);
  c.value = st.value;
  for_each_read(c.value, [&](Access& a) { a = rename_vars(a, p); });
  c.reduce = st.reduce == Reduce::mean ? Reduce::sum : st.reduce;
  if (contraction_stage(op, st)) {
    c.kind = StmtKind::update;
    for_each_read(c.value, [&](const Access& a) { c.srcs.push_back(a); });
    c.value = Expr{};
    c.reduce = Reduce::none;
  }
  body.push_back(perfect_nest(st.vars, p, c));
  if (st.reduce == Reduce::mean) {
    Stmt scale;
    scale.kind = StmtKind::compute;
    scale.dst = rename_vars(st.out, p + "mean.");
    scale.value = Expr::binary(BinaryFn::mul, Expr::read(scale.dst),
                               Expr::constant(1.0 / static_cast<double>(st.reduced_points())));
    body.push_back(perfect_nest(spatial, p + "mean.", scale));
  }
}

LoopNest initial_stage_nest(const Op& op) {
  LoopNest nest;
  nest.op = op;
  for (const auto& t : op.tensors)
    nest.buffers.push_back(buffer_of(t, t.name == op.output.tensor ? BufferKind::output : BufferKind::input));
  for (const auto& t : op.locals) nest.buffers.push_back(buffer_of(t, BufferKind::local));
  for (std::size_t k = 0; k < op.stages.size(); ++k) add_stage_nests(op, op.stages[k], k, nest.body);
  return nest;
}

}  // namespace

// A plain sum of one read (softmax's denominator) stays a compute statement, whose reduction
// loop vectorises with one accumulator per lane.
bool contraction_stage(const Op& op, const Stage& st) {
  if (st.reduce != Reduce::sum || st.value.kind != Expr::Kind::binary || !product_of_reads(st.value)) return false;
  auto f32 = [&](const std::string& t) { return op.find_tensor(t) && op.find_tensor(t)->dtype == DType::f32; };
  bool all = f32(st.out.tensor);
  for_each_read(st.value, [&](const Access& a) { all = all && f32(a.tensor); });
  return all;
}

const Node* LoopNest::find_loop(std::string_view var) const { return find_in(body, var); }
Node* LoopNest::find_loop(std::string_view var) { return find_in(body, var); }

std::vector<std::string> LoopNest::path_to(std::string_view var) const {
  std::vector<std::string> path;
  if (!path_in(body, var, path)) path.clear();
  return path;
}

std::vector<std::string> LoopNest::loop_names() const {
  std::vector<std::string> out;
  names_in(body, out);
  return out;
}

LoopNest initial_nest(const Op& task_op) {
  const std::optional<Op> folded = fold_epilogue(task_op);
  if (!folded && task_op.multi_stage()) return initial_stage_nest(task_op);
  const Op& op = folded ? *folded : task_op;
  LoopNest nest;
  nest.op = op;
  for (const auto& t : op.tensors) {
    BufferDecl b;
    b.name = t.name;
    b.dtype = t.dtype;
    b.shape = t.shape;
    b.kind = t.name == op.output.tensor ? BufferKind::output : BufferKind::input;
    nest.buffers.push_back(b);
  }
  const auto spatial = op.spatial_vars();
  std::vector<std::string> all = spatial;
  for (const auto& r : op.reduction_vars()) all.push_back(r);

  Stmt init;
  init.kind = StmtKind::init;
  init.dst = rename_vars(op.output, "init.");
  nest.body.push_back(perfect_nest(iter_vars(op, spatial), "init.", init));

  Stmt update;
  update.kind = StmtKind::update;
  update.dst = op.output;
  update.srcs = op.inputs;
  update.bias = op.epilogue.bias;
  if (op.epilogue.value) update.value = *op.epilogue.value;
  nest.body.push_back(perfect_nest(iter_vars(op, all), "", update));

  if (!op.epilogue.empty()) {
    Stmt epi;
    epi.kind = StmtKind::epilogue;
    epi.dst = rename_vars(op.output, "epi.");
    if (op.epilogue.bias) epi.bias = rename_vars(*op.epilogue.bias, "epi.");
    if (op.epilogue.value) {
      epi.value = *op.epilogue.value;
      for_each_read(epi.value, [](Access& a) { a = rename_vars(a, "epi."); });
    }
    nest.body.push_back(perfect_nest(iter_vars(op, spatial), "epi.", epi));
  }
  return nest;
}

}  // namespace attune
