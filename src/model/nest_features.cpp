// nest_features(): Ansor/TenSet-style static features of a loop nest (see features.hpp).
//
// Footprints are interval estimates: inside a band of inner loops, an index expression spans
// 1 + sum |coeff| * (extent - 1) values (divided by its divisor), capped by the tensor's
// dimension; a buffer's footprint is the product over its dimensions. Variables bound by fused
// loops count with their binding's extent when the fused loop is inside the band. The band for
// a cache level is the largest set of innermost loops whose footprint, summed over buffers,
// fits the cache: it stands for the loops whose data stays in that cache.
#include <algorithm>
#include <cmath>
#include <map>

#include "model/features.hpp"

namespace attune {

namespace {

constexpr int kLoopSlots = 8;
constexpr int kBufferSlots = 4;
constexpr int kCacheLevels = 3;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

float log2p(double x) { return static_cast<float>(std::log2(1.0 + std::max(0.0, x))); }

struct Found {
  std::vector<const Node*> loops;  // root first
  const Stmt* stmt = nullptr;
};

// Collects the stack of loops around the arithmetic (a contraction's update statement, the
// largest compute statement of a multi-stage op), and counts.
struct Walker {
  Found found;
  double found_points = 0;
  int loops = 0, stmts = 0, parallel = 0;
  double parallel_extent = 1;
  std::vector<const Node*> stack;
  void walk(const std::vector<Node>& body) {
    for (const auto& n : body) {
      if (n.is_loop()) {
        ++loops;
        if (n.kind == LoopKind::parallel) {
          ++parallel;
          parallel_extent *= static_cast<double>(n.extent);
        }
        stack.push_back(&n);
        walk(n.body);
        stack.pop_back();
      } else {
        ++stmts;
        // A contraction's update statement; of a multi-stage op, the compute statement with the
        // largest domain (where its time goes).
        if (n.stmt.kind != StmtKind::update && n.stmt.kind != StmtKind::compute) continue;
        double points = 1;
        for (const Node* l : stack) points *= static_cast<double>(l->extent);
        if (!found.stmt || points > found_points) {
          found = {stack, &n.stmt};
          found_points = points;
        }
      }
    }
  }
};

// Extent of each variable defined by the loops of `band` (their vars and bindings).
std::map<std::string, std::int64_t> band_extents(const std::vector<const Node*>& band) {
  std::map<std::string, std::int64_t> e;
  for (const Node* l : band) {
    e[l->var] = l->extent;
    for (const auto& b : l->bindings) e[b.var] = b.extent;
  }
  return e;
}

double footprint_elems(const Access& a, const BufferDecl* decl, const std::map<std::string, std::int64_t>& ext) {
  double elems = 1;
  for (std::size_t d = 0; d < a.index.size(); ++d) {
    const auto& ix = a.index[d];
    double span = 0;
    for (const auto& [v, c] : ix.terms) {
      auto it = ext.find(v);
      if (it != ext.end()) span += static_cast<double>(std::llabs(c)) * static_cast<double>(it->second - 1);
    }
    span = span / static_cast<double>(std::max<std::int64_t>(1, ix.divisor)) + 1;
    if (decl && d < decl->shape.size()) span = std::min(span, static_cast<double>(decl->shape[d]));
    elems *= span;
  }
  return elems;
}

// Elements between consecutive iterations of loop `var` in a row-major buffer.
double stride_of(const Access& a, const BufferDecl* decl, const std::string& var) {
  if (!decl) return 0;
  double stride = 0, step = 1;
  for (std::size_t d = a.index.size(); d-- > 0;) {
    stride += static_cast<double>(a.index[d].coeff(var)) /
              static_cast<double>(std::max<std::int64_t>(1, a.index[d].divisor)) * step;
    if (d < decl->shape.size()) step *= static_cast<double>(decl->shape[d]);
  }
  return std::fabs(stride);
}

// The nest as a whole: log2 flops, loops, statements, parallel loops and their extent, local
// buffer bytes.
void push_global(std::vector<float>& f, const LoopNest& nest, const Walker& w) {
  double local_bytes = 0;
  for (const auto& b : nest.buffers)
    if (b.kind == BufferKind::local) local_bytes += static_cast<double>(b.numel() * dtype_size(b.dtype));
  f.push_back(log2p(nest.op.flops()));
  f.push_back(static_cast<float>(w.loops));
  f.push_back(static_cast<float>(w.stmts));
  f.push_back(static_cast<float>(w.parallel));
  f.push_back(log2p(w.parallel > 0 ? w.parallel_extent : 0));
  f.push_back(log2p(local_bytes));
}

// The kLoopSlots innermost loops around the update `st` (innermost first): log2 extent, kind,
// and whether it is a reduction (no index of the output uses it or a variable it binds).
void push_loop_slots(std::vector<float>& f, const std::vector<const Node*>& loops, const Stmt* st) {
  for (int i = 0; i < kLoopSlots; ++i) {
    if (!st || i >= static_cast<int>(loops.size())) {
      f.insert(f.end(), {kNaN, kNaN, kNaN});
      continue;
    }
    const Node* l = loops[loops.size() - 1 - i];
    bool reduction = true;
    for (const auto& ix : st->dst.index)
      if (ix.uses(l->var)) reduction = false;
    for (const auto& b : l->bindings)
      for (const auto& ix : st->dst.index)
        if (ix.uses(b.var)) reduction = false;
    f.push_back(log2p(static_cast<double>(l->extent)));
    f.push_back(static_cast<float>(static_cast<int>(l->kind)));
    f.push_back(reduction ? 1.f : 0.f);
  }
}

// The register tile around the update: vector lanes and the product of unrolled extents.
void push_register_tile(std::vector<float>& f, const std::vector<const Node*>& loops, const Stmt* st) {
  double lanes = 1, unroll = 1;
  for (const Node* l : loops) {
    if (l->kind == LoopKind::vectorized) lanes *= static_cast<double>(l->extent);
    if (l->kind == LoopKind::unrolled) unroll *= static_cast<double>(l->extent);
  }
  f.push_back(st ? static_cast<float>(lanes) : kNaN);
  f.push_back(st ? static_cast<float>(unroll) : kNaN);
}

// The update's accesses (output first) and, per cache level, the band of innermost loops whose
// footprint fits that cache.
struct Bands {
  const LoopNest& nest;
  const std::vector<const Node*>& loops;
  std::vector<const Access*> accs;
  std::size_t k[kCacheLevels] = {0, 0, 0};  // loops in each level's band

  Bands(const LoopNest& n, const std::vector<const Node*>& ls, const Stmt* st, const FeatureCaches& caches)
      : nest(n), loops(ls) {
    if (st) {
      accs.push_back(&st->dst);
      for (const auto& s : st->srcs) accs.push_back(&s);
      for_each_read(st->value, [&](const Access& a) { accs.push_back(&a); });
    }
    const double cache_bytes[kCacheLevels] = {caches.l1, caches.l2, caches.l3};
    for (int c = 0; c < kCacheLevels; ++c) {
      std::size_t n_loops = 0;
      while (n_loops < loops.size() && bytes_in(n_loops + 1) <= cache_bytes[c]) ++n_loops;
      k[c] = n_loops;
    }
  }

  // The `n` innermost loops.
  std::vector<const Node*> band_of(std::size_t n) const {
    return std::vector<const Node*>(loops.end() - static_cast<std::ptrdiff_t>(n), loops.end());
  }
  // The bytes all accesses touch inside the `n` innermost loops.
  double bytes_in(std::size_t n) const {
    const auto ext = band_extents(band_of(n));
    double total = 0;
    for (const Access* a : accs) {
      const BufferDecl* d = nest.buffer(a->tensor);
      total += footprint_elems(*a, d, ext) * static_cast<double>(d ? dtype_size(d->dtype) : 4);
    }
    return total;
  }
};

double iterations(const std::vector<const Node*>& band) {
  double iters = 1;
  for (const Node* l : band) iters *= static_cast<double>(l->extent);
  return iters;
}

// Per buffer slot: the innermost loop's stride, then per cache level the log2 bytes the access
// touches in that level's band and its log2 reuse there.
void push_buffer_slots(std::vector<float>& f, const Bands& bands) {
  const auto& loops = bands.loops;
  for (int b = 0; b < kBufferSlots; ++b) {
    if (b >= static_cast<int>(bands.accs.size())) {
      f.insert(f.end(), 1 + 2 * kCacheLevels, kNaN);
      continue;
    }
    const Access& a = *bands.accs[b];
    const BufferDecl* d = bands.nest.buffer(a.tensor);
    f.push_back(loops.empty() ? kNaN : static_cast<float>(stride_of(a, d, loops.back()->var)));
    for (int c = 0; c < kCacheLevels; ++c) {
      const auto band = bands.band_of(bands.k[c]);
      const auto ext = band_extents(band);
      const double iters = iterations(band);
      const double elems = footprint_elems(a, d, ext);
      f.push_back(log2p(elems * static_cast<double>(d ? dtype_size(d->dtype) : 4)));
      f.push_back(log2p(iters / std::max(1.0, elems)));
    }
  }
}

// Per cache level: flops per byte inside its band.
void push_intensity(std::vector<float>& f, const Bands& bands, const Stmt* st) {
  for (int c = 0; c < kCacheLevels; ++c) {
    const double iters = iterations(bands.band_of(bands.k[c]));
    const double bytes = st ? bands.bytes_in(bands.k[c]) : 0;
    f.push_back(bytes > 0 ? static_cast<float>(2 * iters / bytes) : kNaN);
  }
}

}  // namespace

const std::vector<std::string>& nest_feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"log_flops",           "loops",          "stmts", "parallel_loops",
                                  "log_parallel_extent", "log_local_bytes"};
    for (int i = 0; i < kLoopSlots; ++i)
      for (const char* f : {"log_extent", "kind", "reduction"}) n.push_back("loop" + std::to_string(i) + "." + f);
    n.push_back("vector_lanes");
    n.push_back("unroll_product");
    for (int b = 0; b < kBufferSlots; ++b) {
      const std::string p = "buf" + std::to_string(b) + ".";
      n.push_back(p + "inner_stride");
      for (int c = 0; c < kCacheLevels; ++c) {
        n.push_back(p + "L" + std::to_string(c + 1) + ".log_bytes");
        n.push_back(p + "L" + std::to_string(c + 1) + ".log_reuse");
      }
    }
    for (int c = 0; c < kCacheLevels; ++c) n.push_back("L" + std::to_string(c + 1) + ".intensity");
    return n;
  }();
  return names;
}

std::vector<float> nest_features(const LoopNest& nest, const FeatureCaches& caches) {
  std::vector<float> f;
  f.reserve(nest_feature_names().size());
  Walker w;
  w.walk(nest.body);
  push_global(f, nest, w);
  const auto& loops = w.found.loops;
  const Stmt* st = w.found.stmt;
  push_loop_slots(f, loops, st);
  push_register_tile(f, loops, st);
  const Bands bands(nest, loops, st, caches);
  push_buffer_slots(f, bands);
  push_intensity(f, bands, st);
  return f;
}

}  // namespace attune
