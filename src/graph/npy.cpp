// npy.cpp — reading and writing .npy files (npy.hpp).
//
// The header is a Python dict literal; only the three keys NumPy writes are read, with a small
// scanner rather than a Python parser, and its length is bounded before anything is allocated.
#include "graph/npy.hpp"

#include <cstring>
#include <fstream>
#include <sstream>

#include "ir/error.hpp"

namespace attune::graph {

namespace {

constexpr std::size_t kMaxHeader = 1 << 16;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(path + ": not a readable .npy file: " + what);
}

// The text after `'key':` in the header dict, trimmed of leading spaces.
std::string value_after(const std::string& header, const std::string& key, const std::string& path) {
  const auto k = header.find("'" + key + "'");
  if (k == std::string::npos) fail(path, "header has no '" + key + "'");
  auto colon = header.find(':', k);
  if (colon == std::string::npos) fail(path, "header key '" + key + "' has no value");
  auto v = header.find_first_not_of(' ', colon + 1);
  return v == std::string::npos ? "" : header.substr(v);
}

Shape parse_shape(const std::string& v, const std::string& path) {
  if (v.empty() || v[0] != '(') fail(path, "shape is not a tuple");
  const auto close = v.find(')');
  if (close == std::string::npos) fail(path, "shape tuple is not closed");
  Shape shape;
  std::stringstream in(v.substr(1, close - 1));
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto b = item.find_first_not_of(' ');
    if (b == std::string::npos) continue;  // the trailing comma of a 1-tuple
    std::size_t used = 0;
    long long d = -1;
    try {
      d = std::stoll(item.substr(b), &used);
    } catch (const std::exception&) {
      fail(path, "shape entry '" + item + "' is not an integer");
    }
    if (d < 0) fail(path, "shape entry '" + item + "' is negative");
    shape.push_back(d);
  }
  return shape;
}

struct Descr {
  ElemType type;
  std::size_t bytes;
};

Descr parse_descr(const std::string& v, const std::string& path) {
  if (v.size() < 2 || (v[0] != '\'' && v[0] != '"')) fail(path, "descr is not a string");
  const std::string d = v.substr(0, v.find(v[0], 1) + 1);
  if (d == "'<f4'") return {ElemType::f32, 4};
  if (d == "'<i8'") return {ElemType::i64, 8};
  if (d == "'<i4'") return {ElemType::i32, 4};
  if (d == "'|b1'") return {ElemType::boolean, 1};
  fail(path, "dtype " + d + " is not supported (float32, int64, int32, bool)");
}

}  // namespace

HostTensor read_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(path + ": cannot open");
  char magic[8];
  if (!f.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) fail(path, "no NumPy magic");
  const int major = static_cast<unsigned char>(magic[6]);
  std::size_t len = 0;
  unsigned char lb[4] = {0, 0, 0, 0};
  if (major == 1) {
    if (!f.read(reinterpret_cast<char*>(lb), 2)) fail(path, "truncated header");
    len = lb[0] | (lb[1] << 8);
  } else if (major == 2 || major == 3) {
    if (!f.read(reinterpret_cast<char*>(lb), 4)) fail(path, "truncated header");
    len = lb[0] | (lb[1] << 8) | (lb[2] << 16) | (static_cast<std::size_t>(lb[3]) << 24);
  } else {
    fail(path, "format version " + std::to_string(major) + " is not supported");
  }
  if (len > kMaxHeader) fail(path, "header of " + std::to_string(len) + " bytes is too long");
  std::string header(len, '\0');
  if (!f.read(header.data(), static_cast<std::streamsize>(len))) fail(path, "truncated header");
  if (value_after(header, "fortran_order", path).rfind("False", 0) != 0) fail(path, "Fortran order is not supported");
  const Descr descr = parse_descr(value_after(header, "descr", path), path);
  HostTensor t;
  t.type = descr.type;
  t.shape = parse_shape(value_after(header, "shape", path), path);
  const std::int64_t n = element_count(t.shape);
  std::vector<char> raw(static_cast<std::size_t>(n) * descr.bytes);
  if (!f.read(raw.data(), static_cast<std::streamsize>(raw.size())))
    fail(path, "data is shorter than shape " + shape_str(t.shape) + " needs");
  if (f.peek() != std::char_traits<char>::eof()) fail(path, "data is longer than shape " + shape_str(t.shape) + " needs");
  if (t.type == ElemType::f32) {
    t.f.resize(n);
    std::memcpy(t.f.data(), raw.data(), raw.size());
    return t;
  }
  t.i.resize(n);
  for (std::int64_t k = 0; k < n; ++k) {
    const char* p = raw.data() + k * descr.bytes;
    if (descr.bytes == 8) {
      std::memcpy(&t.i[k], p, 8);
    } else if (descr.bytes == 4) {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      t.i[k] = v;
    } else {
      t.i[k] = *p != 0;
    }
  }
  return t;
}

void write_npy(const std::string& path, const HostTensor& t) {
  const bool floats = t.type == ElemType::f32;
  std::string shape = "(";
  for (auto d : t.shape) shape += std::to_string(d) + ", ";
  if (t.shape.size() > 1) shape.resize(shape.size() - 2);
  if (t.shape.size() == 1) shape.pop_back();
  shape += ")";
  std::string header =
      std::string("{'descr': '") + (floats ? "<f4" : "<i8") + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw Error(path + ": cannot write");
  const unsigned short len = static_cast<unsigned short>(header.size());
  f.write("\x93NUMPY\x01\x00", 8);
  const char lb[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  f.write(lb, 2);
  f.write(header.data(), static_cast<std::streamsize>(header.size()));
  if (floats)
    f.write(reinterpret_cast<const char*>(t.f.data()), static_cast<std::streamsize>(t.f.size() * 4));
  else
    f.write(reinterpret_cast<const char*>(t.i.data()), static_cast<std::streamsize>(t.i.size() * 8));
  if (!f) throw Error(path + ": cannot write");
}

}  // namespace attune::graph
