// stage_evaluator.cpp — evaluate_stages(): the reference implementation of multi-stage ops.
//
// Deliberately plain: each stage walks its whole domain point by point (spatial variables, then
// reduced ones) and evaluates its expression tree in double. A stage's reduction accumulates in
// double and is rounded once into the written tensor's dtype, so an intermediate holds what a
// kernel's buffer of that dtype holds. Reads outside a tensor (or at an inexact division) are
// zero, except in max= and min= stages, where such a point is skipped.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "ir/error.hpp"
#include "ir/evaluator.hpp"

namespace attune {

namespace {

// One index dimension over the stage's variables (by position).
struct DimCode {
  std::vector<std::pair<int, std::int64_t>> terms;
  std::int64_t constant = 0, divisor = 1, size = 0, stride = 0;
};

struct ReadCode {
  const Buffer* buf = nullptr;
  std::vector<DimCode> dims;
  // The flat offset at `point`, or -1 outside the tensor or at an inexact division.
  std::int64_t offset(const std::vector<std::int64_t>& point) const {
    std::int64_t off = 0;
    for (const DimCode& d : dims) {
      std::int64_t v = d.constant;
      for (const auto& [i, c] : d.terms) v += c * point[i];
      if (d.divisor != 1) {
        if (v % d.divisor != 0) return -1;
        v /= d.divisor;
      }
      if (v < 0 || v >= d.size) return -1;
      off += v * d.stride;
    }
    return off;
  }
};

double apply_unary(UnaryFn f, double x) {
  switch (f) {
    case UnaryFn::neg: return -x;
    case UnaryFn::exp: return std::exp(x);
    case UnaryFn::log: return std::log(x);
    case UnaryFn::sqrt: return std::sqrt(x);
    case UnaryFn::rsqrt: return 1.0 / std::sqrt(x);
    case UnaryFn::erf: return std::erf(x);
    case UnaryFn::tanh: return std::tanh(x);
    case UnaryFn::abs: return std::fabs(x);
    case UnaryFn::sigmoid: return 1.0 / (1.0 + std::exp(-x));
  }
  return x;
}

double apply_binary(BinaryFn f, double a, double b) {
  switch (f) {
    case BinaryFn::add: return a + b;
    case BinaryFn::sub: return a - b;
    case BinaryFn::mul: return a * b;
    case BinaryFn::div: return a / b;
    case BinaryFn::max: return a > b ? a : b;
    case BinaryFn::min: return a < b ? a : b;
    case BinaryFn::lt: return a < b;
    case BinaryFn::le: return a <= b;
    case BinaryFn::gt: return a > b;
    case BinaryFn::ge: return a >= b;
    case BinaryFn::eq: return a == b;
    case BinaryFn::ne: return a != b;
  }
  return 0;
}

// A value converted as a store into `t` would convert it (integers truncate toward zero and
// wrap, as C's conversions do for the values attune's kernels see).
double cast_to(DType t, double v) {
  switch (t) {
    case DType::f32: return static_cast<float>(v);
    case DType::f16: return half_to_float(float_to_half(static_cast<float>(v)));
    case DType::i8: return static_cast<std::int8_t>(static_cast<std::int64_t>(v));
    case DType::u8: return static_cast<std::uint8_t>(static_cast<std::int64_t>(v));
    case DType::i32: return static_cast<std::int32_t>(static_cast<std::int64_t>(v));
  }
  return v;
}

class StageRun {
 public:
  StageRun(const Stage& st, std::map<std::string, Buffer*>& bufs) : st_(st), bufs_(bufs) {
    for (std::size_t i = 0; i < st.vars.size(); ++i) pos_[st.vars[i].name] = static_cast<int>(i);
    out_ = compile(st.out);
    compile_reads(st.value);
  }

  void run() {
    Buffer& out = *bufs_.at(st_.out.tensor);
    std::vector<double> acc(static_cast<std::size_t>(out.numel()), reduce_identity(st_.reduce));
    std::vector<char> written(acc.size(), 0);
    std::vector<std::int64_t> point(st_.vars.size(), 0);
    const bool skip_outside = st_.reduce == Reduce::max || st_.reduce == Reduce::min;
    do {
      const std::int64_t o = out_.offset(point);
      if (o < 0) continue;
      bool outside = false;
      next_read_ = 0;
      const double v = eval(st_.value, point, outside);
      written[o] = 1;  // a reduction's element holds its identity even when every point is skipped
      if (outside && skip_outside) continue;
      switch (st_.reduce) {
        case Reduce::none: acc[o] = v; break;
        case Reduce::sum:
        case Reduce::mean: acc[o] += v; break;
        case Reduce::max: acc[o] = v > acc[o] ? v : acc[o]; break;
        case Reduce::min: acc[o] = v < acc[o] ? v : acc[o]; break;
      }
    } while (step(point));
    const double scale = st_.reduce == Reduce::mean ? 1.0 / static_cast<double>(st_.reduced_points()) : 1.0;
    for (std::size_t i = 0; i < acc.size(); ++i)
      if (written[i]) out.set(static_cast<std::int64_t>(i), cast_to(out.dtype(), acc[i] * scale));
  }

 private:
  ReadCode compile(const Access& a) const {
    ReadCode r;
    r.buf = bufs_.at(a.tensor);
    const auto& shape = r.buf->shape();
    r.dims.resize(a.index.size());
    std::int64_t stride = 1;
    for (std::size_t d = a.index.size(); d-- > 0;) {
      DimCode& dc = r.dims[d];
      for (const auto& [v, c] : a.index[d].terms) dc.terms.emplace_back(pos_.at(v), c);
      dc.constant = a.index[d].constant;
      dc.divisor = a.index[d].divisor;
      dc.size = shape[d];
      dc.stride = stride;
      stride *= shape[d];
    }
    return r;
  }

  void compile_reads(const Expr& e) {
    if (e.kind == Expr::Kind::load) reads_.push_back(compile(e.load));
    for (const auto& a : e.args) compile_reads(a);
  }

  // Reads are numbered in the order compile_reads() met them: the same depth-first order.
  double eval(const Expr& e, const std::vector<std::int64_t>& point, bool& outside) {
    switch (e.kind) {
      case Expr::Kind::load: {
        const ReadCode& r = reads_[next_read_++];
        const std::int64_t off = r.offset(point);
        if (off < 0) {
          outside = true;
          return 0;
        }
        return r.buf->get(off);
      }
      case Expr::Kind::constant: return e.value;
      case Expr::Kind::unary: return apply_unary(e.unary_fn, eval(e.args[0], point, outside));
      case Expr::Kind::binary: {
        const double a = eval(e.args[0], point, outside);
        return apply_binary(e.binary_fn, a, eval(e.args[1], point, outside));
      }
      case Expr::Kind::select: {
        // Every argument is evaluated, so that the reads keep their numbering.
        const double c = eval(e.args[0], point, outside), a = eval(e.args[1], point, outside);
        const double b = eval(e.args[2], point, outside);
        return c != 0 ? a : b;
      }
      case Expr::Kind::cast: return cast_to(e.cast_to, eval(e.args[0], point, outside));
    }
    return 0;
  }

  bool step(std::vector<std::int64_t>& point) const {
    for (std::size_t i = point.size(); i-- > 0;) {
      if (++point[i] < st_.vars[i].extent) return true;
      point[i] = 0;
    }
    return false;
  }

  const Stage& st_;
  std::map<std::string, Buffer*>& bufs_;
  std::map<std::string, int> pos_;
  ReadCode out_;
  std::vector<ReadCode> reads_;
  std::size_t next_read_ = 0;
};

}  // namespace

void evaluate_stages(const Op& op, std::vector<Buffer>& tensors) {
  std::map<std::string, Buffer*> bufs;
  for (std::size_t i = 0; i < op.tensors.size(); ++i) bufs[op.tensors[i].name] = &tensors[i];
  std::vector<Buffer> locals;
  locals.reserve(op.locals.size());
  for (const auto& t : op.locals) {
    locals.emplace_back(t.dtype, t.shape);
    bufs[t.name] = &locals.back();
  }
  for (const auto& st : op.stages) StageRun(st, bufs).run();
}

}  // namespace attune
