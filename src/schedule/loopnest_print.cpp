// The printed form of a loop nest, meant for people: one line per loop (perfectly nested serial
// loops share a line), statements with their index expressions and guards, and each local
// buffer shown where it is allocated.
#include <sstream>

#include "schedule/loopnest.hpp"

namespace attune {

namespace {

std::string shape_str(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string product(const std::vector<Access>& srcs) {
  std::string s;
  for (std::size_t i = 0; i < srcs.size(); ++i) s += (i ? " * " : "") + srcs[i].str();
  return s;
}

std::string epilogue_of(const LoopNest& nest, const std::string& value, const Stmt& s) {
  std::string v = value;
  if (s.bias) v += " + " + s.bias->str();
  if (nest.op.epilogue.relu) v = "relu(" + v + ")";
  // The value reads the element computed so far as the output element itself (op.hpp).
  if (nest.op.epilogue.value) v = s.value.str() + " where " + s.dst.str() + " is " + v;
  return v;
}

std::string stmt_str(const LoopNest& nest, const Stmt& s) {
  std::string line;
  switch (s.kind) {
    case StmtKind::init:
      line = s.dst.str() + " = " + (s.init_value == 0 ? "0" : Expr::constant(s.init_value).str());
      break;
    case StmtKind::update: line = s.dst.str() + " += " + product(s.srcs); break;
    case StmtKind::copy: line = s.dst.str() + " = " + s.srcs.at(0).str(); break;
    case StmtKind::writeback: {
      std::string v = s.srcs.at(0).str();
      if (s.epilogue) v = epilogue_of(nest, (s.accumulate ? s.dst.str() + " + " : "") + v, s);
      line = s.dst.str() + (s.accumulate && !s.epilogue ? " += " : " = ") + v;
      break;
    }
    case StmtKind::epilogue: {
      line = s.dst.str() + " = " + epilogue_of(nest, s.dst.str(), s);
      break;
    }
    case StmtKind::compute: {
      const Reduce r = s.reduce;
      line = s.dst.str() + " " + std::string(reduce_name(r)) + " " + s.value.str();
      break;
    }
  }
  if (!s.guards.empty()) {
    line += "    if ";
    for (std::size_t i = 0; i < s.guards.size(); ++i) line += (i ? " && " : "") + s.guards[i].str();
  }
  return line;
}

void print_allocs(const LoopNest& nest, const std::string& at, const std::string& pad, std::ostringstream& os) {
  for (const auto& b : nest.buffers)
    if (b.kind == BufferKind::local && b.alloc_at == at)
      os << pad << "local " << b.name << shape_str(b.shape) << " " << dtype_name(b.dtype) << "\n";
}

void print_nodes(const LoopNest& nest, const std::vector<Node>& nodes, int depth, std::ostringstream& os) {
  const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
  for (const auto& n : nodes) {
    if (!n.is_loop()) {
      os << pad << stmt_str(nest, n.stmt) << "\n";
      continue;
    }
    // Merge a chain of plain serial loops into one line, as people write them.
    const Node* cur = &n;
    std::string head = std::string(loop_kind_name(cur->kind)) + " " + cur->var + " < " + std::to_string(cur->extent);
    auto plain = [&](const Node* x) {
      if (x->kind != LoopKind::serial || !x->bindings.empty()) return false;
      for (const auto& b : nest.buffers)
        if (b.kind == BufferKind::local && b.alloc_at == x->var) return false;
      return true;
    };
    while (plain(cur) && cur->body.size() == 1 && cur->body[0].is_loop() && plain(&cur->body[0])) {
      cur = &cur->body[0];
      head += ", " + cur->var + " < " + std::to_string(cur->extent);
    }
    os << pad << head << ":";
    for (const auto& b : cur->bindings) {
      os << "  (" << b.var << " = " << (b.div != 1 || b.mod ? "(" + b.base.str() + ")" : b.base.str());
      if (b.div != 1) os << " / " << b.div;
      if (b.mod) os << " % " << b.mod;
      os << ")";
    }
    os << "\n";
    print_allocs(nest, cur->var, pad + "  ", os);
    print_nodes(nest, cur->body, depth + 1, os);
  }
}

}  // namespace

std::string LoopNest::str() const {
  std::ostringstream os;
  print_allocs(*this, "", "", os);
  print_nodes(*this, body, 0, os);
  return os.str();
}

}  // namespace attune
