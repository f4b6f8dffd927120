// memory_estimate.cpp — runtime/memory_estimate.hpp: the estimate, the limit, byte sizes.
#include "runtime/memory_estimate.hpp"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "ir/error.hpp"

namespace attune {

std::uint64_t measurement_memory_bytes(const Op& op) {
  std::uint64_t inputs = 0, output = 0;
  for (const auto& t : op.tensors) {
    // numel() <= 2^40 (the spec parser's bound) and a dtype is at most 4 bytes: no overflow.
    const auto bytes = static_cast<std::uint64_t>(t.numel()) * dtype_size(t.dtype);
    (t.name == op.output.tensor ? output : inputs) += bytes;
  }
  return 3 * inputs + 5 * output;
}

std::uint64_t default_memory_limit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::uint64_t{4} << 30;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) / 2;
}

std::uint64_t parse_byte_size(std::string_view text, const std::string& what) {
  auto bad = [&]() -> std::uint64_t {
    throw Error(what + ": expected a size in bytes such as 4G, 512M or 1000000, got '" + std::string(text) + "'");
  };
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0 || i > 30) return bad();
  const std::string number(text.substr(0, i));
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(value) || value <= 0) return bad();
  std::string unit(text.substr(i));
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.ends_with("IB"))
    unit.resize(unit.size() - 2);
  else if (unit.ends_with("B"))
    unit.resize(unit.size() - 1);
  double scale = 1;
  if (unit == "K")
    scale = 1024.0;
  else if (unit == "M")
    scale = 1024.0 * 1024;
  else if (unit == "G")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "T")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else if (!unit.empty())
    return bad();
  const double bytes = value * scale;
  if (bytes >= 1.8e19) return bad();  // beyond 64 bits
  return static_cast<std::uint64_t>(bytes);
}

std::string format_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

void check_memory_limit(const Op& op, std::uint64_t limit) {
  const std::uint64_t need = measurement_memory_bytes(op);
  if (need <= limit) return;
  throw Error(
      "op '" + (op.name.empty() ? std::string("op") : op.name) + "' needs about " + format_bytes(need) +
      " of memory to measure (its tensors and the copies attune makes of them), more than the limit of " +
      format_bytes(limit) +
      "; raise it with --max-memory SIZE (Budget::max_memory in the C++ API; default: half of physical memory)");
}

}  // namespace attune
