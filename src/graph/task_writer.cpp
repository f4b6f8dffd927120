// task_writer.cpp — spec text of one task (task_writer.hpp).
#include "graph/task_writer.hpp"

#include "ir/error.hpp"
#include "ir/template_params.hpp"

namespace attune::graph {

namespace {

// `constant`: a value the model holds fixed (a weight), declared const so that the tuner times
// the task reading it from memory, as a run of the whole model does (ir/access.hpp).
std::string decl(const std::string& name, const Shape& shape, bool constant = false) {
  std::string s = "tensor " + name + "[";
  for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + "] f32" + (constant ? " const" : "") + "\n";
}

std::string subscript(const std::string& tensor, const Index& idx) {
  std::string s = tensor + "[";
  for (std::size_t k = 0; k < idx.size(); ++k) s += (k ? ", " : "") + idx[k];
  return s + "]";
}

}  // namespace

Index physical(const Index& logical, const std::vector<int>& layout) {
  if (layout.empty()) return logical;
  Index p;
  for (int d : layout) p.push_back(logical[d]);
  return p;
}

Operand TaskWriter::read(const std::string& tensor, const Shape& shape, const std::vector<int>& layout) {
  // A 0-d tensor is declared as [1] (the spec has no scalars) and read at 0.
  return {[tensor, rank = shape.size(), layout](const Index& idx) {
            return rank == 0 ? tensor + "[0]" : subscript(tensor, physical(idx, layout));
          },
          shape, tensor, false, std::nullopt};
}

Operand TaskWriter::input(int value) {
  const Value& v = g_.values[value];
  for (std::size_t k = 0; k < bound_.size(); ++k)
    if (bound_[k] == value) return read(input_names_[k], v.shape, v.layout);
  const std::string name = "x" + std::to_string(bound_.size());
  inputs_ += decl(name, v.shape.empty() ? Shape{1} : physical_shape(v), v.constant.has_value());
  bound_.push_back(value);
  input_names_.push_back(name);
  return read(name, v.shape, v.layout);
}

Operand TaskWriter::constant(HostTensor data, const std::string& what) {
  Value v;
  v.name = what;
  v.type = data.type;
  v.shape = data.shape;
  v.constant = std::move(data);
  return input(g_.add_value(std::move(v)));
}

Operand TaskWriter::number(double v, Shape shape) {
  const std::string text = ir::spec_number(v);
  return {[text](const Index&) { return text; }, std::move(shape), "", false, std::nullopt};
}

std::string TaskWriter::local(const Shape& shape, const std::vector<int>& layout) {
  const std::string name = "t" + std::to_string(locals_count_++);
  Value v;
  v.shape = shape;
  v.layout = layout;
  locals_ += decl(name, shape.empty() ? Shape{1} : physical_shape(v));
  return name;
}

Operand TaskWriter::materialize(const Operand& o) {
  if (!o.stored.empty()) return o;
  if (o.boolean) throw Error("a comparison is only usable as the condition of Where");
  const std::string t = local(o.shape);
  const Index v = vars(o.shape.size(), 'v');
  for (std::size_t k = 0; k < v.size(); ++k) extent(v[k], o.shape[k]);
  statement(t, v, "=", o.at(v));
  return read(t, o.shape);
}

Index TaskWriter::vars(std::size_t n, char kind) {
  Index v;
  for (std::size_t k = 0; k < n; ++k) v.push_back(std::string(1, kind) + std::to_string(statements_) + "_" + std::to_string(k));
  return v;
}

void TaskWriter::extent(const std::string& var, std::int64_t n) {
  vars_ += "var " + var + " < " + std::to_string(n) + "\n";
}

void TaskWriter::statement(const std::string& out, const Index& vars, const std::string& op, const std::string& value,
                           const std::vector<int>& layout) {
  // A 0-d output is declared [1]: its statement indexes it with a variable of extent 1.
  Index idx = physical(vars, layout);
  if (idx.empty()) {
    idx.push_back("z" + std::to_string(statements_));
    extent(idx.back(), 1);
  }
  body_ += subscript(out, idx) + " " + op + " " + value + "\n";
  last_local_ = out;
  last_layout_ = layout;
  ++statements_;
}

std::string TaskWriter::finish(const Operand& result, int out_value) {
  const Value& out = g_.values[out_value];
  const Shape& shape = out.shape;
  const Shape phys = shape.empty() ? Shape{1} : physical_shape(out);
  std::string locals = locals_, body = body_;
  const bool same_layout = last_layout_ == out.layout;
  if (result.epi && statements_ == 1 && result.epi->acc == last_local_ && same_layout &&
      (result.epi->relu || !result.epi->bias.empty())) {
    std::string epilogue;
    if (!result.epi->bias.empty()) epilogue += "epilogue bias " + result.epi->bias + "\n";
    if (result.epi->relu) epilogue += "epilogue relu\n";
    return finish(read(result.epi->acc, shape, out.layout), out_value) + epilogue;
  }
  const std::string d = result.stored.empty() ? "" : decl(result.stored, phys);
  const auto declared = d.empty() ? std::string::npos : locals.find(d);
  if (result.stored == last_local_ && result.stored[0] == 't' && same_layout && declared != std::string::npos) {
    // The last statement already computes the result: it writes y instead of its intermediate.
    locals.erase(declared, d.size());
    const auto line = body.rfind('\n', body.size() - 2);
    const auto start = line == std::string::npos ? 0 : line + 1;
    body.replace(start, result.stored.size(), "y");
  } else {
    if (result.boolean) throw Error("a comparison cannot be a task's result");
    const Index v = vars(shape.size(), 'v');
    for (std::size_t k = 0; k < v.size(); ++k) extent(v[k], shape[k]);
    Index idx = v;
    if (idx.empty()) {
      idx.push_back("z" + std::to_string(statements_));
      extent(idx.back(), 1);
    }
    body += subscript("y", v.empty() ? idx : physical(v, out.layout)) + " = " + result.at(v) + "\n";
  }
  bound_.push_back(out_value);
  return inputs_ + decl("y", phys) + locals + vars_ + body;
}

Operand broadcast_to(const Operand& o, const Shape& out) {
  if (o.shape == out) return o;
  if (o.shape.size() > out.size()) throw Error("cannot broadcast " + shape_str(o.shape) + " to " + shape_str(out));
  const std::size_t lead = out.size() - o.shape.size();
  for (std::size_t k = 0; k < o.shape.size(); ++k)
    if (o.shape[k] != 1 && o.shape[k] != out[lead + k])
      throw Error("cannot broadcast " + shape_str(o.shape) + " to " + shape_str(out));
  Operand r = o;
  r.shape = out;
  r.stored.clear();
  r.at = [at = o.at, in = o.shape, lead](const Index& idx) {
    Index sub;
    for (std::size_t k = 0; k < in.size(); ++k) sub.push_back(in[k] == 1 ? "0" : idx[lead + k]);
    return at(sub);
  };
  return r;
}

}  // namespace attune::graph
