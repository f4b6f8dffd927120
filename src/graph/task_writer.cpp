// task_writer.cpp — spec text of one task (task_writer.hpp).
#include "graph/task_writer.hpp"

#include "ir/error.hpp"
#include "ir/template_params.hpp"

namespace attune::graph {

namespace {

std::string decl(const std::string& name, const Shape& shape) {
  std::string s = "tensor " + name + "[";
  for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + "] f32\n";
}

std::string subscript(const std::string& tensor, const Index& idx) {
  std::string s = tensor + "[";
  for (std::size_t k = 0; k < idx.size(); ++k) s += (k ? ", " : "") + idx[k];
  return s + "]";
}

}  // namespace

Operand TaskWriter::read(const std::string& tensor, const Shape& shape) {
  // A 0-d tensor is declared as [1] (the spec has no scalars) and read at 0.
  return {[tensor, rank = shape.size()](const Index& idx) {
            return rank == 0 ? tensor + "[0]" : subscript(tensor, idx);
          },
          shape, tensor, false, std::nullopt};
}

Operand TaskWriter::input(int value) {
  for (std::size_t k = 0; k < bound_.size(); ++k)
    if (bound_[k] == value) return read(input_names_[k], g_.values[value].shape);
  const std::string name = "x" + std::to_string(bound_.size());
  const Shape& shape = g_.values[value].shape;
  inputs_ += decl(name, shape.empty() ? Shape{1} : shape);
  bound_.push_back(value);
  input_names_.push_back(name);
  return read(name, shape);
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

std::string TaskWriter::local(const Shape& shape) {
  const std::string name = "t" + std::to_string(locals_count_++);
  locals_ += decl(name, shape.empty() ? Shape{1} : shape);
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

void TaskWriter::statement(const std::string& out, const Index& vars, const std::string& op, const std::string& value) {
  // A 0-d output is declared [1]: its statement indexes it with a variable of extent 1.
  Index idx = vars;
  if (idx.empty()) {
    idx.push_back("z" + std::to_string(statements_));
    extent(idx.back(), 1);
  }
  body_ += subscript(out, idx) + " " + op + " " + value + "\n";
  last_local_ = out;
  ++statements_;
}

std::string TaskWriter::finish(const Operand& result, int out_value) {
  const Shape& shape = g_.values[out_value].shape;
  std::string locals = locals_, body = body_;
  if (result.epi && statements_ == 1 && result.epi->acc == last_local_ && (result.epi->relu || !result.epi->bias.empty())) {
    std::string epilogue;
    if (!result.epi->bias.empty()) epilogue += "epilogue bias " + result.epi->bias + "\n";
    if (result.epi->relu) epilogue += "epilogue relu\n";
    return finish(read(result.epi->acc, shape), out_value) + epilogue;
  }
  if (!result.stored.empty() && result.stored == last_local_ && result.stored[0] == 't') {
    // The last statement already computes the result: it writes y instead of its intermediate.
    const std::string d = decl(result.stored, shape.empty() ? Shape{1} : shape);
    locals.erase(locals.find(d), d.size());
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
    body += subscript("y", idx) + " = " + result.at(v) + "\n";
  }
  bound_.push_back(out_value);
  return inputs_ + decl("y", shape.empty() ? Shape{1} : shape) + locals + vars_ + body;
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
