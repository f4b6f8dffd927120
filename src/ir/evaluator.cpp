// evaluator.cpp — evaluate(): the reference implementation of any Op (see evaluator.hpp).
//
// The domain is walked with an odometer over every variable but one "inner" variable (a long
// one with small strides, see choose_inner). At each outer point each
// access becomes base + t*step over the inner variable t, and the in-bounds range of t is
// computed once, so the inner loop is a strided dot product. Indices with a division that
// depends on t are checked per element. Floats accumulate in double, integers in int64.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/error.hpp"
#include "ir/evaluator.hpp"

namespace attune {

namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {  // b > 0
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

// One index of one access, split into the outer variables' terms and the inner coefficient.
struct DimPlan {
  std::vector<std::pair<int, std::int64_t>> outer;  // (variable position, coefficient)
  std::int64_t inner = 0;
  std::int64_t constant = 0;
  std::int64_t divisor = 1;
  std::int64_t size = 0;
  std::int64_t stride = 0;
};

struct AccessPlan {
  std::vector<DimPlan> dims;
  int tensor = -1;
};

// A divided index that varies with t: checked per element.
struct DivCheck {
  std::int64_t value, inner, divisor, size, stride;
};

// One access at one outer point: offset = base + t*step for t in the valid range.
struct Line {
  std::int64_t base = 0, step = 0;
  std::vector<DivCheck> divs;
};

AccessPlan plan(const Op& op, const Access& a, const std::vector<int>& pos_of_var, int inner_var) {
  AccessPlan p;
  p.tensor = op.tensor_index(a.tensor);
  const Tensor& t = op.tensors[p.tensor];
  std::int64_t stride = 1;
  p.dims.resize(a.index.size());
  for (std::size_t d = a.index.size(); d-- > 0;) {
    DimPlan& dp = p.dims[d];
    const AffineExpr& e = a.index[d];
    for (const auto& [v, c] : e.terms) {
      int vi = -1;
      for (std::size_t i = 0; i < op.vars.size(); ++i)
        if (op.vars[i].name == v) vi = static_cast<int>(i);
      ATTUNE_CHECK(vi >= 0, "evaluate: access " + a.str() + " uses unknown variable " + v);
      if (vi == inner_var)
        dp.inner += c;
      else
        dp.outer.emplace_back(pos_of_var[vi], c);
    }
    dp.constant = e.constant;
    dp.divisor = e.divisor;
    dp.size = t.shape[d];
    dp.stride = stride;
    stride *= t.shape[d];
  }
  return p;
}

// Fills `line` for the current outer point and narrows [lo, hi) to where the access is in
// bounds. Returns false when no t gives a valid access.
bool line_at(const AccessPlan& p, const std::vector<std::int64_t>& val, Line& line, std::int64_t& lo,
             std::int64_t& hi) {
  line.base = 0;
  line.step = 0;
  line.divs.clear();
  for (const DimPlan& d : p.dims) {
    std::int64_t v = d.constant;
    for (const auto& [i, c] : d.outer) v += c * val[i];
    if (d.divisor != 1) {
      if (d.inner != 0) {
        line.divs.push_back({v, d.inner, d.divisor, d.size, d.stride});
        continue;
      }
      if (v % d.divisor != 0) return false;
      v /= d.divisor;
    }
    std::int64_t c = d.inner;
    if (c == 0) {
      if (v < 0 || v >= d.size) return false;
    } else if (c > 0) {
      lo = std::max(lo, ceil_div(-v, c));
      hi = std::min(hi, floor_div(d.size - 1 - v, c) + 1);
    } else {
      lo = std::max(lo, ceil_div(v - d.size + 1, -c));
      hi = std::min(hi, floor_div(v, -c) + 1);
    }
    line.base += v * d.stride;
    line.step += c * d.stride;
  }
  return lo < hi;
}

// Offset of an access with per-element divisions at t, or -1 when it reads zero.
std::int64_t offset_at(const Line& l, std::int64_t t) {
  std::int64_t off = l.base + t * l.step;
  for (const DivCheck& d : l.divs) {
    std::int64_t x = d.value + d.inner * t;
    if (x % d.divisor != 0) return -1;
    std::int64_t q = x / d.divisor;
    if (q < 0 || q >= d.size) return -1;
    off += q * d.stride;
  }
  return off;
}

template <class T>
std::vector<T> load(const Buffer& b) {
  std::vector<T> v(static_cast<std::size_t>(b.numel()));
  switch (b.dtype()) {
    case DType::f32:
      for (std::int64_t i = 0; i < b.numel(); ++i) v[i] = static_cast<T>(b.as<float>()[i]);
      break;
    case DType::i8:
      for (std::int64_t i = 0; i < b.numel(); ++i) v[i] = static_cast<T>(b.as<std::int8_t>()[i]);
      break;
    case DType::u8:
      for (std::int64_t i = 0; i < b.numel(); ++i) v[i] = static_cast<T>(b.as<std::uint8_t>()[i]);
      break;
    case DType::i32:
      for (std::int64_t i = 0; i < b.numel(); ++i) v[i] = static_cast<T>(b.as<std::int32_t>()[i]);
      break;
    case DType::f16:
      for (std::int64_t i = 0; i < b.numel(); ++i) v[i] = static_cast<T>(b.get(i));
      break;
  }
  return v;
}

// Writes an int64 into an integer buffer with two's-complement wrap-around.
void store_wrapped(Buffer& b, std::int64_t i, std::int64_t v) {
  auto u = static_cast<std::uint64_t>(v);
  switch (b.dtype()) {
    case DType::i8: b.as<std::int8_t>()[i] = static_cast<std::int8_t>(static_cast<std::uint8_t>(u)); return;
    case DType::u8: b.as<std::uint8_t>()[i] = static_cast<std::uint8_t>(u); return;
    case DType::i32: b.as<std::int32_t>()[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(u)); return;
    default: b.set(i, static_cast<double>(v)); return;
  }
}

// Advances the odometer over the variables in `order`; false when it wraps around.
bool step(std::vector<std::int64_t>& val, const std::vector<std::int64_t>& extent) {
  for (std::size_t i = val.size(); i-- > 0;) {
    if (++val[i] < extent[i]) return true;
    val[i] = 0;
  }
  return false;
}

// The variable the inner loop runs over. Every output element still receives its terms in
// the same order (the other variables' odometer order), so the choice changes speed only:
// prefer a long loop (extents from 32 up count the same), then small strides in memory.
int choose_inner(const Op& op) {
  int best = -1;
  std::int64_t best_len = 0, best_stride = 0;
  for (std::size_t i = 0; i < op.vars.size(); ++i) {
    std::int64_t len = std::min<std::int64_t>(op.vars[i].extent, 32), stride = 0;
    auto add = [&](const Access& a) {
      const Tensor& t = op.tensor(a.tensor);
      std::int64_t s = 1;
      for (std::size_t d = a.index.size(); d-- > 0;) {
        std::int64_t c = a.index[d].coeff(op.vars[i].name);
        stride += (c < 0 ? -c : c) * s;
        s *= t.shape[d];
      }
    };
    add(op.output);
    for (const auto& a : op.inputs) add(a);
    if (best < 0 || len > best_len || (len == best_len && stride < best_stride)) {
      best = static_cast<int>(i);
      best_len = len;
      best_stride = stride;
    }
  }
  return best;
}

template <class T>
void accumulate(const Op& op, const std::vector<Buffer>& bufs, std::vector<T>& acc) {
  const int nv = static_cast<int>(op.vars.size());
  const int inner = choose_inner(op);

  std::vector<int> pos_of_var(nv, -1);
  std::vector<std::int64_t> extent;
  for (int i = 0; i < nv; ++i) {
    if (i == inner) continue;
    pos_of_var[i] = static_cast<int>(extent.size());
    extent.push_back(op.vars[i].extent);
  }
  const std::int64_t inner_extent = inner >= 0 ? op.vars[inner].extent : 1;

  AccessPlan out = plan(op, op.output, pos_of_var, inner);
  std::vector<AccessPlan> ins;
  std::vector<std::vector<T>> data(op.tensors.size());
  for (const Access& a : op.inputs) {
    ins.push_back(plan(op, a, pos_of_var, inner));
    int ti = ins.back().tensor;
    if (data[ti].empty()) data[ti] = load<T>(bufs[ti]);
  }
  std::vector<const T*> src;
  for (const auto& p : ins) src.push_back(data[p.tensor].data());

  std::vector<std::int64_t> val(extent.size(), 0);
  Line out_line;
  std::vector<Line> lines(ins.size());
  do {
    std::int64_t lo = 0, hi = inner_extent;
    if (!line_at(out, val, out_line, lo, hi)) continue;
    bool empty = false;
    bool divs = !out_line.divs.empty();
    for (std::size_t a = 0; a < ins.size() && !empty; ++a) {
      empty = !line_at(ins[a], val, lines[a], lo, hi);
      divs = divs || !lines[a].divs.empty();
    }
    if (empty) continue;
    if (!divs && ins.size() == 2) {  // the common case: a strided dot product or axpy
      const T* x = src[0] + lines[0].base;
      const T* y = src[1] + lines[1].base;
      const std::int64_t sx = lines[0].step, sy = lines[1].step, so = out_line.step;
      if (so == 0) {
        T sum = 0;
        for (std::int64_t t = lo; t < hi; ++t) sum += x[t * sx] * y[t * sy];
        acc[out_line.base] += sum;
      } else if (so == 1 && (sx == 0 || sy == 0) && sx + sy == 1) {  // unit-stride axpy (vectorises)
        T* o = acc.data() + out_line.base;
        const T a = sx == 0 ? x[0] : y[0];
        const T* v = sx == 0 ? y : x;
        for (std::int64_t t = lo; t < hi; ++t) o[t] += a * v[t];
      } else {
        T* o = acc.data() + out_line.base;
        for (std::int64_t t = lo; t < hi; ++t) o[t * so] += x[t * sx] * y[t * sy];
      }
      continue;
    }
    for (std::int64_t t = lo; t < hi; ++t) {
      std::int64_t o = offset_at(out_line, t);
      if (o < 0) continue;
      T prod = 1;
      for (std::size_t a = 0; a < ins.size(); ++a) {
        std::int64_t off = offset_at(lines[a], t);
        if (off < 0) {
          prod = 0;
          break;
        }
        prod *= src[a][off];
      }
      acc[o] += prod;
    }
  } while (step(val, extent));
}

std::string shape_str(DType t, const std::vector<std::int64_t>& shape) {
  std::string s(dtype_name(t));
  s += "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// out = value, pointwise: the one statement `OUT[spatial] = value` run by the stage evaluator,
// whose reads of OUT see the element before the statement stores it.
void apply_epilogue_value(const Op& op, std::vector<Buffer>& bufs) {
  Op pointwise;
  pointwise.name = op.name;
  pointwise.tensors = op.tensors;
  pointwise.output = op.output;
  Stage st;
  st.out = op.output;
  st.value = *op.epilogue.value;
  for (const auto& v : op.vars)
    if (!v.reduction) st.vars.push_back(v);
  pointwise.stages.push_back(std::move(st));
  evaluate_stages(pointwise, bufs);
}

// Applies the bias (read at the spatial point that produced each output element) and relu.
void apply_epilogue(const Op& op, std::vector<Buffer>& bufs) {
  const Epilogue& ep = op.epilogue;
  Buffer& out = bufs[op.tensor_index(op.output.tensor)];
  const bool ints = !is_float(out.dtype());
  auto finish = [&](std::int64_t i, double bias) {
    if (ints) {
      std::int64_t v = static_cast<std::int64_t>(out.get(i)) + static_cast<std::int64_t>(bias);
      store_wrapped(out, i, v);
      if (ep.relu && out.get(i) < 0) out.set(i, 0);
    } else {
      out.set(i, out.get(i) + bias);
      if (ep.relu && out.get(i) < 0) out.set(i, 0);
    }
  };
  if (!ep.bias) {
    for (std::int64_t i = 0; i < out.numel(); ++i) finish(i, 0);
    return;
  }
  // Walk the spatial variables only (inner variable: none).
  std::vector<int> pos_of_var(op.vars.size(), -1);
  std::vector<std::int64_t> extent;
  for (std::size_t i = 0; i < op.vars.size(); ++i) {
    if (op.vars[i].reduction) continue;
    pos_of_var[i] = static_cast<int>(extent.size());
    extent.push_back(op.vars[i].extent);
  }
  AccessPlan op_out = plan(op, op.output, pos_of_var, -1);
  AccessPlan op_bias = plan(op, *ep.bias, pos_of_var, -1);
  const Buffer& bias = bufs[op_bias.tensor];
  std::vector<char> done(static_cast<std::size_t>(out.numel()), 0);
  std::vector<std::int64_t> val(extent.size(), 0);
  Line lo_line, bias_line;
  do {
    std::int64_t lo = 0, hi = 1;
    if (!line_at(op_out, val, lo_line, lo, hi)) continue;
    std::int64_t o = lo_line.base;
    if (done[o]) continue;
    done[o] = 1;
    lo = 0;
    hi = 1;
    double b = line_at(op_bias, val, bias_line, lo, hi) ? bias.get(bias_line.base) : 0.0;
    finish(o, b);
  } while (step(val, extent));
}

}  // namespace

void evaluate(const Op& op, std::vector<Buffer>& tensors) {
  if (tensors.size() != op.tensors.size())
    throw Error("evaluate: op '" + op.name + "' has " + std::to_string(op.tensors.size()) + " tensors but " +
                std::to_string(tensors.size()) + " buffers were given");
  for (std::size_t i = 0; i < op.tensors.size(); ++i) {
    const Tensor& t = op.tensors[i];
    if (tensors[i].dtype() != t.dtype || tensors[i].shape() != t.shape)
      throw Error("evaluate: tensor '" + t.name + "' is " + shape_str(t.dtype, t.shape) + " but its buffer is " +
                  shape_str(tensors[i].dtype(), tensors[i].shape()));
  }
  if (op.multi_stage()) return evaluate_stages(op, tensors);
  Buffer& out = tensors[op.tensor_index(op.output.tensor)];
  if (is_float(op.accum_dtype())) {
    std::vector<double> acc(static_cast<std::size_t>(out.numel()), 0.0);
    accumulate(op, tensors, acc);
    for (std::int64_t i = 0; i < out.numel(); ++i) out.set(i, acc[i]);
  } else {
    std::vector<std::int64_t> acc(static_cast<std::size_t>(out.numel()), 0);
    accumulate(op, tensors, acc);
    for (std::int64_t i = 0; i < out.numel(); ++i) store_wrapped(out, i, acc[i]);
  }
  if (op.epilogue.bias || op.epilogue.relu) apply_epilogue(op, tensors);
  if (op.epilogue.value) apply_epilogue_value(op, tensors);
}

}  // namespace attune
