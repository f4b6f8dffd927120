// Presenting mappings: JSON for tools (`attune map --json`) and a table for people.
#include <algorithm>
#include <cstdio>

#include "mapping/mapping.hpp"

namespace attune {

namespace {

std::string join(const std::vector<std::string>& xs, const char* sep) {
  std::string s;
  for (const auto& x : xs) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * x);
  return buf;
}

std::string pad_right(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

}  // namespace

bool Mapping::one_to_one() const {
  return std::all_of(loops.begin(), loops.end(), [](const LoopAssignment& l) { return l.op_loops.size() == 1; });
}

std::string Mapping::str() const {
  std::vector<std::string> parts;
  for (const auto& l : loops) parts.push_back(l.intrinsic_loop + "<-" + join(l.op_loops, ","));
  return join(parts, " ");
}

nlohmann::json to_json(const Mapping& m) {
  nlohmann::json loops = nlohmann::json::array();
  for (const auto& l : m.loops)
    loops.push_back({{"intrinsic_loop", l.intrinsic_loop},
                     {"op_loops", l.op_loops},
                     {"extent", l.extent},
                     {"op_extent", l.op_extent}});
  nlohmann::json operands = nlohmann::json::object();
  for (const auto& [k, v] : m.operand_of) operands[k] = v;
  nlohmann::json j = {{"intrinsic", m.intrinsic},
                      {"loops", loops},
                      {"operand_of", operands},
                      {"one_to_one", m.one_to_one()},
                      {"valid", m.valid},
                      {"padding_waste", m.padding_waste},
                      {"padded_iterations", m.padded_iterations},
                      {"useful_iterations", m.useful_iterations}};
  if (!m.valid) j["reason"] = m.reason;
  return j;
}

nlohmann::json to_json(const MappingReport& r) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& m : r.items) items.push_back(to_json(m));
  nlohmann::json j = {{"intrinsic", r.intrinsic}, {"one_to_one", r.one_to_one}, {"mappings", r.mappings}};
  if (!r.reason.empty()) j["reason"] = r.reason;
  j["items"] = std::move(items);
  return j;
}

std::string render_table(const MappingReport& r, bool include_invalid) {
  std::string out = r.intrinsic + ": " + std::to_string(r.one_to_one) + " one-to-one match" +
                    (r.one_to_one == 1 ? "" : "es") + ", " + std::to_string(r.mappings) + " mapping" +
                    (r.mappings == 1 ? "" : "s");
  if (!r.reason.empty()) out += " (" + r.reason + ")";
  out += "\n";
  if (r.items.empty()) return out;

  // Columns: a number, one per intrinsic loop ("i<16"), operands, waste, status.
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head{"#"};
  for (const auto& l : r.items.front().loops) head.push_back(l.intrinsic_loop + "<" + std::to_string(l.extent));
  head.push_back("operands");
  head.push_back("waste");
  head.push_back("status");
  rows.push_back(head);
  int n = 0;
  for (const auto& m : r.items) {
    ++n;
    if (!m.valid && !include_invalid) continue;
    std::vector<std::string> row{std::to_string(n)};
    for (const auto& l : m.loops) row.push_back(join(l.op_loops, ","));
    std::vector<std::string> ops;
    for (const auto& [k, v] : m.operand_of) ops.push_back(k + "=" + v);
    row.push_back(join(ops, " "));
    row.push_back(m.valid ? percent(m.padding_waste) : "-");
    row.push_back(m.valid ? "valid" : "invalid: " + m.reason);
    rows.push_back(row);
  }
  std::vector<std::size_t> width(head.size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : rows) {
    std::string line = " ";
    for (std::size_t c = 0; c < row.size(); ++c)
      line += " " + (c + 1 == row.size() ? row[c] : pad_right(row[c], width[c]));
    out += line + "\n";
  }
  return out;
}

}  // namespace attune
