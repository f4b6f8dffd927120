// onnx_reader.cpp — ModelProto to Graph (onnx_reader.hpp).
//
// The protobuf library does the parsing; everything it accepts is then checked here before the
// rest of attune sees it: sizes against limits, tensor data against the declared shape, and
// names against what was defined, so that a hostile or damaged file gives one error line.
#include "graph/onnx_reader.hpp"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "ir/error.hpp"

namespace attune::graph {

namespace {

constexpr std::int64_t kMinOpset = 11, kMaxOpset = 21;
constexpr std::size_t kMaxNodes = 200000;
constexpr std::size_t kMaxFileBytes = std::size_t{2} << 30;  // protobuf's own limit

std::string quoted(const std::string& s) { return "'" + s.substr(0, 200) + "'"; }

ElemType elem_type(int onnx_type, const std::string& what) {
  switch (onnx_type) {
    case onnx::TensorProto::FLOAT: return ElemType::f32;
    case onnx::TensorProto::INT64: return ElemType::i64;
    case onnx::TensorProto::INT32: return ElemType::i32;
    case onnx::TensorProto::BOOL: return ElemType::boolean;
    default:
      throw Error(what + " has element type " + std::to_string(onnx_type) +
                  ", which attune does not support (float32, int64, int32, bool)");
  }
}

template <typename T>
void copy_raw(const std::string& raw, std::int64_t n, const std::string& what, std::vector<std::int64_t>& out) {
  if (raw.size() != static_cast<std::size_t>(n) * sizeof(T))
    throw Error(what + " holds " + std::to_string(raw.size()) + " bytes, its shape needs " +
                std::to_string(n * static_cast<std::int64_t>(sizeof(T))));
  out.resize(n);
  for (std::int64_t k = 0; k < n; ++k) {
    T v;
    std::memcpy(&v, raw.data() + k * sizeof(T), sizeof(T));
    out[k] = static_cast<std::int64_t>(v);
  }
}

HostTensor tensor_of(const onnx::TensorProto& p, const std::string& what) {
  if (p.data_location() == onnx::TensorProto::EXTERNAL)
    throw Error(what + " keeps its data in an external file, which attune does not read");
  HostTensor t;
  t.type = elem_type(p.data_type(), what);
  for (auto d : p.dims()) t.shape.push_back(d);
  const std::int64_t n = element_count(t.shape);
  auto check = [&](std::int64_t have) {
    if (have != n)
      throw Error(what + " holds " + std::to_string(have) + " elements, its shape " + shape_str(t.shape) + " needs " +
                  std::to_string(n));
  };
  const std::string& raw = p.raw_data();
  if (t.type == ElemType::f32) {
    if (!raw.empty()) {
      check(static_cast<std::int64_t>(raw.size() / 4));
      if (raw.size() % 4) throw Error(what + " has a partial float");
      t.f.resize(n);
      std::memcpy(t.f.data(), raw.data(), raw.size());
    } else {
      check(p.float_data_size());
      t.f.assign(p.float_data().begin(), p.float_data().end());
    }
    return t;
  }
  if (!raw.empty()) {
    if (t.type == ElemType::i64) copy_raw<std::int64_t>(raw, n, what, t.i);
    if (t.type == ElemType::i32) copy_raw<std::int32_t>(raw, n, what, t.i);
    if (t.type == ElemType::boolean) copy_raw<std::uint8_t>(raw, n, what, t.i);
  } else if (t.type == ElemType::i64) {
    check(p.int64_data_size());
    t.i.assign(p.int64_data().begin(), p.int64_data().end());
  } else {
    check(p.int32_data_size());  // int32 and bool are both kept in int32_data
    t.i.assign(p.int32_data().begin(), p.int32_data().end());
  }
  return t;
}

Attribute attribute_of(const onnx::AttributeProto& a, const std::string& what) {
  Attribute r;
  switch (a.type()) {
    case onnx::AttributeProto::INT: r.kind = Attribute::Kind::integer, r.i = a.i(); break;
    case onnx::AttributeProto::FLOAT: r.kind = Attribute::Kind::real, r.f = a.f(); break;
    case onnx::AttributeProto::STRING: r.kind = Attribute::Kind::text, r.s = a.s(); break;
    case onnx::AttributeProto::INTS:
      r.kind = Attribute::Kind::integers;
      r.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case onnx::AttributeProto::FLOATS:
      r.kind = Attribute::Kind::reals;
      r.floats.assign(a.floats().begin(), a.floats().end());
      break;
    case onnx::AttributeProto::TENSOR:
      r.kind = Attribute::Kind::tensor;
      r.t = tensor_of(a.t(), what + " attribute " + quoted(a.name()));
      break;
    default: throw Error(what + ": attribute " + quoted(a.name()) + " is of a kind attune does not read (graphs, sparse)");
  }
  return r;
}

Shape input_shape(const onnx::ValueInfoProto& vi, const ShapeOverrides& shapes) {
  const std::string what = "graph input " + quoted(vi.name());
  if (auto it = shapes.find(vi.name()); it != shapes.end()) return it->second;
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape())
    throw Error(what + " has no shape; give one with --shape " + vi.name().substr(0, 100) + "=D1,D2,...");
  Shape s;
  for (const auto& d : vi.type().tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0)
      throw Error(what + " has a dynamic dimension" + (d.has_dim_param() ? " " + quoted(d.dim_param()) : "") +
                  "; fix it with --shape " + vi.name().substr(0, 100) + "=D1,D2,...");
    s.push_back(d.dim_value());
  }
  return s;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw Error(path + ": cannot open");
  const auto size = static_cast<std::size_t>(f.tellg());
  if (size > kMaxFileBytes) throw Error(path + ": larger than 2 GiB, the most a protobuf file may hold");
  std::string bytes(size, '\0');
  f.seekg(0);
  if (!f.read(bytes.data(), static_cast<std::streamsize>(size))) throw Error(path + ": cannot read");
  return bytes;
}

onnx::ModelProto parse_model(const std::string& bytes, const std::string& path) {
  if (bytes.empty()) throw Error(path + ": not an ONNX model (the file is empty)");
  onnx::ModelProto m;
  if (!m.ParseFromString(bytes)) throw Error(path + ": not an ONNX model (protobuf parsing failed: damaged or truncated)");
  if (!m.has_graph() || m.graph().node_size() == 0)
    throw Error(path + ": not an ONNX model (no graph, or a graph without nodes: damaged or truncated)");
  return m;
}

std::int64_t default_opset(const onnx::ModelProto& m, const std::string& path) {
  for (const auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      if (o.version() < kMinOpset || o.version() > kMaxOpset)
        throw Error(path + ": opset " + std::to_string(o.version()) + " is not supported (attune reads opsets " +
                    std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) + "; re-export the model)");
      return o.version();
    }
  throw Error(path + ": the model imports no opset of the default ONNX domain");
}

}  // namespace

Graph read_onnx(const std::string& path, const ShapeOverrides& shapes) {
  return read_onnx_bytes(read_file(path), path, shapes);
}

Graph read_onnx_bytes(const std::string& bytes, const std::string& path, const ShapeOverrides& shapes) {
  const onnx::ModelProto m = parse_model(bytes, path);
  Graph g;
  g.opset = default_opset(m, path);
  g.producer = m.producer_name().substr(0, 100) + " " + m.producer_version().substr(0, 50);
  const auto& gp = m.graph();
  if (static_cast<std::size_t>(gp.node_size()) > kMaxNodes)
    throw Error(path + ": " + std::to_string(gp.node_size()) + " nodes, more than attune's limit of " +
                std::to_string(kMaxNodes));
  std::unordered_map<std::string, int> by_name;
  auto define = [&](Value v, const std::string& what) {
    if (v.name.empty()) throw Error(path + ": " + what + " has an empty name");
    if (by_name.count(v.name)) throw Error(path + ": " + what + " " + quoted(v.name) + " is defined twice");
    const std::string name = v.name;
    return by_name[name] = g.add_value(std::move(v));
  };
  for (const auto& init : gp.initializer()) {
    Value v;
    v.name = init.name();
    v.constant = tensor_of(init, path + ": initializer " + quoted(init.name()));
    v.type = v.constant->type;
    v.shape = v.constant->shape;
    define(std::move(v), "initializer");
  }
  for (const auto& [name, s] : shapes) {  // checked first: a misspelt name explains a later error
    bool input = false;
    for (const auto& vi : gp.input()) input = input || (vi.name() == name && !by_name.count(name));
    if (!input) throw Error(path + ": --shape names " + quoted(name) + ", which is not a graph input of the model");
  }
  for (const auto& vi : gp.input()) {
    if (by_name.count(vi.name())) continue;  // an initializer listed as an input (old exporters)
    Value v;
    v.name = vi.name();
    v.type = elem_type(vi.type().tensor_type().elem_type(), path + ": graph input " + quoted(vi.name()));
    v.shape = input_shape(vi, shapes);
    element_count(v.shape);
    g.inputs.push_back(define(std::move(v), "graph input"));
  }
  for (int k = 0; k < gp.node_size(); ++k) {
    const auto& np = gp.node(k);
    Node n;
    n.op = np.op_type();
    n.name = np.name();
    g.nodes.push_back(n);  // so that describe() works in the errors below
    const std::string what = path + ": " + g.describe(k);
    if (!np.domain().empty() && np.domain() != "ai.onnx")
      throw Error(what + " is in domain " + quoted(np.domain()) + "; attune reads the default ONNX domain only");
    for (const auto& in : np.input()) {
      if (in.empty()) {
        g.nodes[k].inputs.push_back(-1);
        continue;
      }
      auto it = by_name.find(in);
      if (it == by_name.end()) throw Error(what + ": input " + quoted(in) + " is not defined before the node");
      g.nodes[k].inputs.push_back(it->second);
    }
    for (const auto& a : np.attribute()) g.nodes[k].attrs[a.name()] = attribute_of(a, what);
    for (const auto& out : np.output()) {
      Value v;
      v.name = out;
      g.nodes[k].outputs.push_back(out.empty() ? g.add_value(std::move(v)) : define(std::move(v), "node output"));
    }
  }
  for (const auto& o : gp.output()) {
    auto it = by_name.find(o.name());
    if (it == by_name.end()) throw Error(path + ": graph output " + quoted(o.name()) + " is never computed");
    g.outputs.push_back(it->second);
  }
  if (g.outputs.empty()) throw Error(path + ": the graph has no outputs");
  g.link();
  return g;
}

std::pair<std::string, Shape> parse_shape_override(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error("--shape '" + text.substr(0, 200) + "': expected NAME=D1,D2,... (e.g. input=1,3,224,224)");
  Shape s;
  std::stringstream in(text.substr(eq + 1));
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    long long d = -1;
    try {
      d = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || d < 1 || d > (1LL << 31))
      throw Error("--shape '" + text.substr(0, 200) + "': dimension '" + item.substr(0, 40) +
                  "' is not a positive integer");
    s.push_back(d);
  }
  if (s.empty()) throw Error("--shape '" + text.substr(0, 200) + "': no dimensions after '='");
  element_count(s);
  return {text.substr(0, eq), s};
}

}  // namespace attune::graph
