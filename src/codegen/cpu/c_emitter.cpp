// Loops, allocations and scalar statements of the C printer.
#include "codegen/cpu/c_emitter.hpp"

#include <algorithm>
#include <optional>

#include "codegen/c_safe.hpp"
#include "codegen/cpu/c_math.hpp"
#include "codegen/lowering.hpp"
#include "ir/error.hpp"
#include "schedule/analysis.hpp"

namespace attune::cgen {

namespace {

// The buffer a root node fills when it is nothing but copies of const inputs into one local
// buffer at function scope (a pack at "root", however later scheduled); "" otherwise.
std::string root_pack_of(const LoopNest& nest, const Node& n) {
  std::string buffer;
  bool only_copies = true;
  sched::for_each_stmt({n}, [&](const Stmt& s, const std::vector<const Node*>&) {
    const auto* dst = nest.buffer(s.dst.tensor);
    const bool copies_const = s.kind == StmtKind::copy && s.srcs.size() == 1 &&
                              nest.op.tensor_index(s.srcs[0].tensor) >= 0 && nest.op.tensor(s.srcs[0].tensor).constant;
    if (!copies_const || !dst || dst->kind != BufferKind::local || !dst->alloc_at.empty() || dst->in_registers ||
        (!buffer.empty() && buffer != s.dst.tensor))
      only_copies = false;
    buffer = s.dst.tensor;
  });
  return only_copies ? buffer : "";
}

}  // namespace

CEmitter::CEmitter(const LoopNest& nest, const CpuCodegenOptions& opts)
    : nest_(nest), opts_(opts), lanes_(opts.vector_bits / 32), env_(nest) {
  // Prepackable: written by root packs alone. Any other write (a statement outside such a
  // nest) disqualifies the buffer.
  std::set<std::string> packed, written_elsewhere;
  for (const auto& n : nest_.body) {
    const std::string b = root_pack_of(nest_, n);
    if (!b.empty()) {
      packed.insert(b);
      continue;
    }
    sched::for_each_stmt({n}, [&](const Stmt& s, const std::vector<const Node*>&) { written_elsewhere.insert(s.dst.tensor); });
  }
  for (const auto& b : nest_.buffers)
    if (packed.count(b.name) && !written_elsewhere.count(b.name)) prepackable_.push_back(&b);
}

bool CEmitter::is_prepackable(const std::string& buffer) const {
  return std::any_of(prepackable_.begin(), prepackable_.end(), [&](const BufferDecl* b) { return b->name == buffer; });
}

bool CEmitter::packs_prepackable(const Node& n) const {
  const std::string b = root_pack_of(nest_, n);
  return !b.empty() && is_prepackable(b);
}

std::string CEmitter::var(const std::string& v) const {
  std::string s = "i_";
  for (char c : v) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      s += c;
    else if (c == '.')
      s += '_';
    else if (c == '@')
      s += "_in_";
    else
      s += "_x";
  }
  return s;
}

std::string CEmitter::expr(const AffineExpr& e) const {
  std::int64_t c = e.constant;
  std::string s;
  for (const auto& [v, k] : e.terms) {
    if (auto it = env_.consts.find(v); it != env_.consts.end()) {
      c += k * it->second;
      continue;
    }
    std::string t = (k == 1 ? "" : k == -1 ? "-" : std::to_string(k) + "*") + var(v);
    if (s.empty())
      s = t;
    else if (t[0] == '-')
      s += " - " + t.substr(1);
    else
      s += " + " + t;
  }
  if (s.empty())
    s = std::to_string(c);
  else if (c > 0)
    s += " + " + std::to_string(c);
  else if (c < 0)
    s += " - " + std::to_string(-c);
  if (e.divisor != 1) s = "(" + s + ")/" + std::to_string(e.divisor);
  return "(" + s + ")";
}

std::string CEmitter::offset(const Access& a) const {
  const auto* b = nest_.buffer(a.tensor);
  ATTUNE_CHECK(b, "access to unknown buffer " + a.tensor);
  // Fold the whole offset into one affine expression when no dimension divides.
  bool affine = std::all_of(a.index.begin(), a.index.end(), [](const AffineExpr& e) { return e.divisor == 1; });
  if (affine) {
    AffineExpr flat;
    std::int64_t stride = 1;
    for (std::size_t d = a.index.size(); d-- > 0;) {
      flat = flat + a.index[d] * stride;
      stride *= b->shape[d];
    }
    return expr(flat);
  }
  std::string s;
  std::int64_t stride = 1;
  for (std::size_t d = a.index.size(); d-- > 0;) {
    s = (s.empty() ? "" : s + " + ") + std::to_string(stride) + "*" + expr(a.index[d]);
    stride *= b->shape[d];
  }
  return "(" + s + ")";
}

std::string CEmitter::in_bounds(const Access& a, const Stmt& s) const {
  const auto* b = nest_.buffer(a.tensor);
  if (b->kind == BufferKind::local) return "";
  std::string cond;
  for (std::size_t d = 0; d < a.index.size(); ++d) {
    const AffineExpr& e = a.index[d];
    auto r = range(e);
    // A split tail's guard bounds exactly this expression: the statement never runs past it.
    for (const auto& g : s.guards)
      if (g.expr == e) r.hi = std::min(r.hi, g.bound - 1);
    if (stopped(e, b->shape[d])) r.hi = std::min(r.hi, b->shape[d] - 1);  // the vector loop ends there
    std::string c;
    if (e.divisor != 1 && !proven_divisible(e)) {
      AffineExpr num = e;
      num.divisor = 1;
      c = "(" + expr(num) + " % " + std::to_string(e.divisor) + " == 0)";
    }
    if (r.lo < 0 || r.hi >= b->shape[d] || e.divisor != 1) {
      const std::string bound = "(unsigned long)" + expr(e) + " < " + std::to_string(b->shape[d]) + "UL";
      c = c.empty() ? bound : c + " && " + bound;
    }
    if (!c.empty()) cond = cond.empty() ? c : cond + " && " + c;
  }
  return cond;
}

std::string CEmitter::guards(const Stmt& s) const {
  std::string cond;
  for (const auto& g : s.guards) {
    if (range(g.expr).hi < g.bound || stopped(g.expr, g.bound))
      continue;  // holds wherever this statement is emitted now
    const std::string c = expr(g.expr) + " < " + std::to_string(g.bound);
    cond = cond.empty() ? c : cond + " && " + c;
  }
  return cond;
}

std::string CEmitter::ctype(DType t) const {
  switch (t) {
    case DType::f32: return "float";
    case DType::f16: return "_Float16";
    case DType::i8: return "int8_t";
    case DType::u8: return "uint8_t";
    case DType::i32: return "int32_t";
  }
  return "float";
}

std::string CEmitter::scalar_read(const Access& a, const Stmt& s) const {
  const std::string acc = a.tensor + "[" + offset(a) + "]";
  const std::string cond = in_bounds(a, s);
  return cond.empty() ? acc : "(" + cond + " ? " + acc + " : 0)";
}

void CEmitter::line(const std::string& text) {
  out_ << std::string(static_cast<std::size_t>(indent) * 2, ' ') << text << "\n";
}

void CEmitter::emit_allocs(const std::string& at) {
  for (const auto& b : nest_.buffers) {
    if (b.kind != BufferKind::local || b.alloc_at != at) continue;
    if (part_ != BodyPart::whole && is_prepackable(b.name)) continue;  // the caller's packed[j]
    if (promoted(b.name)) {
      declare_promoted(b);
      continue;
    }
    const std::size_t bytes = static_cast<std::size_t>(b.numel()) * dtype_size(b.dtype);
    if (bytes <= kStackBytes) {
      line(ctype(b.dtype) + " " + b.name + "[" + std::to_string(b.numel()) + "] __attribute__((aligned(64)));");
    } else {
      // A per-thread workspace (declared at function scope, emit_workspaces), allocated on a
      // thread's first call and kept.
      const std::size_t rounded = (bytes + 63) / 64 * 64;
      const std::string t = ctype(b.dtype), ws = b.name + "_ws";
      line("if (!" + ws + ") " + ws + " = (" + t + "*)aligned_alloc(64, " + std::to_string(rounded) + ");");
      line(t + "* restrict " + b.name + " = " + ws + ";");
    }
  }
}

// The per-thread workspaces of local buffers too large for the stack: glibc maps a block of
// megabytes afresh on every malloc, and faulting in a packed weight tensor's pages each call
// can cost more than the kernel's arithmetic (ResNet's last layer: 9 MiB), so each thread
// allocates one on its first call and keeps it. The shapes are fixed, so the size is too.
// Threads do not share one (a parallel loop's iterations each pack their own panel). Declared
// once at function scope, so that a scope emitted twice (a split tail) uses the same one.
void CEmitter::emit_workspaces() {
  for (const auto& b : nest_.buffers) {
    if (b.kind != BufferKind::local || promoted(b.name)) continue;
    if (static_cast<std::size_t>(b.numel()) * dtype_size(b.dtype) <= kStackBytes) continue;
    if (part_ != BodyPart::whole && is_prepackable(b.name)) continue;
    line("static _Thread_local " + ctype(b.dtype) + "* " + b.name + "_ws = 0;");
  }
}

void CEmitter::emit_nodes(const std::vector<Node>& nodes) {
  for (const auto& n : nodes) {
    if (n.is_loop())
      emit_loop(n);
    else
      emit_stmt(n.stmt);
  }
}

void CEmitter::emit_loop(const Node& l) {
  if (!in_lane_reduction_)
    if (const Node* vector_loop = lane_reduction_below(l)) {
      emit_lane_reduction(l, *vector_loop);
      return;
    }
  const std::string v = var(l.var);
  auto body = [&] {
    for (const auto& b : l.bindings) {
      std::string e = expr(b.base);
      if (b.div != 1) e = "(" + e + " / " + std::to_string(b.div) + ")";
      if (b.mod) e = "(" + e + " % " + std::to_string(b.mod) + ")";
      line("const long " + var(b.var) + " = " + e + ";");
    }
    emit_allocs(l.var);
    emit_nodes(l.body);
  };

  if (l.kind == LoopKind::unrolled) {  // split_tails may have made it one copy of [begin, end)
    for (std::int64_t i = l.lowering.begin; i < (l.lowering.end < 0 ? l.extent : l.lowering.end); ++i) {
      env_.consts[l.var] = i;
      line("{  /* " + comment_safe(l.var) + " = " + std::to_string(i) + " */");
      ++indent;
      body();
      --indent;
      line("}");
    }
    env_.consts.erase(l.var);
    return;
  }
  if (l.kind == LoopKind::vectorized && l.lowering.vector_code) {
    emit_vector_loop(l);
    return;
  }
  if (l.kind == LoopKind::vectorized && emit_reduction_loop(l)) return;
  if (const auto& p = l.lowering.phase) {
    // rest's terms and constant are non-negative, so C's % is the mathematical one here.
    // coeff 1: v + rest = 0 (mod d); coeff d - 1: v = rest (mod d).
    const std::string d = std::to_string(p->divisor);
    const std::string r = "(" + expr(p->rest) + " % " + d + ")";
    const std::string start = p->coeff == 1 && p->divisor != 2 ? "((" + d + " - " + r + ") % " + d + ")" : r;
    line("for (long " + v + " = " + start + "; " + v + " < " + std::to_string(l.extent) + "; " + v + " += " + d +
         ") {  /* one residue class of a strided read */");
    ++indent;
    proven_.push_back(*p);
    body();
    proven_.pop_back();
    --indent;
    line("}");
    return;
  }
  const std::int64_t begin = l.lowering.begin;
  std::int64_t end = l.lowering.end < 0 ? l.extent : l.lowering.end;
  if (!l.lowering.note.empty()) line("/* " + comment_safe(l.var) + l.lowering.note + " */");
  // A vector loop whose lanes past some limit do nothing stops there (lane_stop()): at a
  // constant, or at end_, computed where the limit moves with an outer variable.
  std::optional<LaneStop> stop;
  if (l.kind == LoopKind::vectorized) stop = lane_stop(l);
  std::string end_c = std::to_string(end);
  const bool computed = stop && !stop->limit.is_constant();  // end_ in a scope of its own
  if (stop && stop->limit.is_constant() && stop->limit.constant < end) {
    end = std::max(begin, stop->limit.constant);
    end_c = std::to_string(end);
    line("/* " + comment_safe(l.var) + " < " + end_c + ": the lanes that exist */");
  } else if (computed) {
    line("{  /* " + comment_safe(l.var) + " < " + comment_safe(stop->limit.str()) + ": the lanes that exist */");
    ++indent;
    const std::string limit = expr(stop->limit);
    line("const long end_ = " + limit + " < " + end_c + " ? " + limit + " : " + end_c + ";");
    end_c = "end_";
  } else {
    stop.reset();
  }
  if (stop) stopped_.insert(stopped_.end(), stop->checks.begin(), stop->checks.end());
  if (l.lowering.split_part || stop) env_.parts[l.var] = {begin, end - 1};
  if (l.kind == LoopKind::parallel) line("#pragma omp parallel for schedule(static)");
  if (l.kind == LoopKind::vectorized) line("#pragma omp simd");
  line("for (long " + v + " = " + std::to_string(begin) + "; " + v + " < " + end_c + "; ++" + v + ") {");
  ++indent;
  body();
  --indent;
  line("}");
  if (l.lowering.split_part || stop) env_.parts.erase(l.var);
  if (stop) stopped_.resize(stopped_.size() - stop->checks.size());
  if (computed) {
    --indent;
    line("}");
  }
}

// Where a vector loop may stop instead of checking its lanes. A tile past the vector
// dimension's end (the tail of 128 channels in tiles of 48) checks each lane against the end,
// v + 48*k.0 < 128: a statement's guard, or a read's bounds check, which skips an update. gcc
// leaves such a loop scalar: a tail like this made a transposed convolution 60x slower, and a
// 512-column GEMM 5x. When every statement of the loop has such a check with the same limit
// (v < 128 - 48*k.0), the loop runs v up to that limit instead, which is exactly the lanes
// where the checks hold, and prints without them. A copy's bounds check is not a stop: it
// writes the padding's zeros.
std::optional<CEmitter::LaneStop> CEmitter::lane_stop(const Node& l) const {
  std::optional<AffineExpr> limit;
  LaneStop stop;
  for (const auto& n : l.body) {
    if (n.is_loop()) return std::nullopt;
    bool stops = false;
    // e < bound, with e = v + rest: v < bound - rest.
    auto check = [&](const AffineExpr& e, std::int64_t bound) {
      if (e.coeff(l.var) != 1 || e.divisor != 1) return;
      AffineExpr at = AffineExpr::constant_of(bound) + e * -1;
      at.add_term(l.var, 1);
      if (const sched::Range r = range(at); r.lo == r.hi) at = AffineExpr::constant_of(r.lo);  // one value here
      if (limit && !(*limit == at)) return;
      limit = at;
      stop.checks.push_back({e, bound});
      stops = true;
    };
    for (const auto& g : n.stmt.guards) check(g.expr, g.bound);
    if (n.stmt.kind == StmtKind::update)
      for (const auto& a : n.stmt.srcs)
        if (const auto* b = nest_.buffer(a.tensor); b && b->kind != BufferKind::local)
          for (std::size_t d = 0; d < a.index.size(); ++d) check(a.index[d], b->shape[d]);
    if (!stops) return std::nullopt;  // a statement that runs on every lane
  }
  if (!limit) return std::nullopt;
  stop.limit = *limit;
  return stop;
}

bool CEmitter::stopped(const AffineExpr& e, std::int64_t bound) const {
  return std::any_of(stopped_.begin(), stopped_.end(), [&](const Guard& g) { return g.bound == bound && g.expr == e; });
}

bool CEmitter::proven_divisible(const AffineExpr& e) const {
  const AffineExpr r = numerator_residue(e);
  return std::any_of(proven_.begin(), proven_.end(),
                     [&](const PhaseStep& p) { return p.divisor == e.divisor && p.residue == r; });
}

void CEmitter::emit_stmt(const Stmt& s) {
  const auto& op = nest_.op;
  const std::string g = guards(s);
  const std::string dst = s.dst.tensor + "[" + offset(s.dst) + "]";
  const DType dt = nest_.buffer(s.dst.tensor)->dtype;
  const std::string acc_t = ctype(dt);
  std::string text;
  std::string cond = g;
  auto also = [&](const std::string& c) {
    if (!c.empty()) cond = cond.empty() ? c : cond + " && " + c;
  };
  auto epilogue = [&](std::string v) {
    if (s.bias) v = "(" + v + " + (" + acc_t + ")" + scalar_read(*s.bias, s) + ")";
    if (op.epilogue.relu) v = "(" + v + " > 0 ? " + v + " : 0)";
    if (op.epilogue.value) v = epilogue_value_c(s, v);
    return v;
  };
  switch (s.kind) {
    case StmtKind::init:
      text = dst + " = " + (s.init_value == 0 ? std::string("0") : c_float(s.init_value)) + ";";
      break;
    case StmtKind::compute: emit_compute_stmt(s); return;
    case StmtKind::update: {
      // The product is zero when any factor reads outside its tensor: skip the update then.
      std::string prod;
      for (const auto& a : s.srcs) {
        also(in_bounds(a, s));
        prod += (prod.empty() ? "" : " * ") + ("(" + acc_t + ")" + a.tensor + "[" + offset(a) + "]");
      }
      text = dst + " += " + prod + ";";
      break;
    }
    case StmtKind::copy: text = dst + " = " + scalar_read(s.srcs.at(0), s) + ";"; break;
    case StmtKind::writeback: {
      std::string v = s.srcs.at(0).tensor + "[" + offset(s.srcs.at(0)) + "]";
      if (s.accumulate) v = dst + " + " + v;
      if (s.epilogue) v = epilogue(v);
      text = dst + " = " + v + ";";
      break;
    }
    case StmtKind::epilogue: text = dst + " = " + epilogue(dst) + ";"; break;
  }
  if (cond.empty())
    line(text);
  else
    line("if (" + cond + ") " + text);
}

std::string CEmitter::function_body(BodyPart part) {
  part_ = part;
  for (std::size_t i = 0; i < nest_.op.tensors.size(); ++i) {
    const auto& t = nest_.op.tensors[i];
    const bool out = t.name == nest_.op.output.tensor;
    line(std::string(out ? "" : "const ") + ctype(t.dtype) + "* restrict " + t.name + " = (" + (out ? "" : "const ") +
         ctype(t.dtype) + "*)buffers[" + std::to_string(i) + "];");
  }
  if (part != BodyPart::whole)
    for (std::size_t j = 0; j < prepackable_.size(); ++j) {
      const std::string t = ctype(prepackable_[j]->dtype);
      line(t + "* restrict " + prepackable_[j]->name + " = (" + t + "*)packed[" + std::to_string(j) + "];");
    }
  if (part != BodyPart::pack) {
    emit_workspaces();
    emit_allocs("");
  }
  for (const auto& n : nest_.body) {
    const bool pack = packs_prepackable(n);
    if (part != BodyPart::whole && pack != (part == BodyPart::pack)) continue;
    if (n.is_loop())
      emit_loop(n);
    else
      emit_stmt(n.stmt);
  }
  return out_.str();
}

}  // namespace attune::cgen
