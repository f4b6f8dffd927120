#include "hw/json_node.hpp"

#include <fstream>
#include <sstream>

#include "ir/error.hpp"
#include "ir/json_limits.hpp"

namespace attune::hw {

namespace {

// Messages must stay on one line whatever the document holds.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return s;
}

std::string join(const std::vector<std::string>& xs, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (i) out += sep;
    out += xs[i];
  }
  return out;
}

}  // namespace

void JsonNode::fail(const std::string& what) const {
  std::string msg = origin_ + ": ";
  if (!path_.empty()) msg += path_ + ": ";
  throw Error(one_line(msg + what));
}

JsonNode JsonNode::child(std::string_view key, const nlohmann::json& v) const {
  std::string p = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  return JsonNode(v, origin_, std::move(p));
}

void JsonNode::require_object() const {
  if (!value_->is_object()) fail("expected an object, got " + brief());
}

void JsonNode::require_array() const {
  if (!value_->is_array()) fail("expected an array, got " + brief());
}

bool JsonNode::has(std::string_view key) const {
  require_object();
  return value_->contains(key);
}

JsonNode JsonNode::get(std::string_view key) const {
  require_object();
  auto it = value_->find(key);
  if (it == value_->end()) child(key, *value_).fail("missing required field");
  return child(key, *it);
}

std::optional<JsonNode> JsonNode::find(std::string_view key) const {
  require_object();
  auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return child(key, *it);
}

void JsonNode::only_keys(std::initializer_list<std::string_view> allowed) const {
  require_object();
  for (const auto& [k, v] : value_->items()) {
    if (k == "comment") continue;
    bool ok = false;
    for (auto a : allowed) ok = ok || a == k;
    if (ok) continue;
    std::vector<std::string> names;
    for (auto a : allowed) names.emplace_back(a);
    child(k, v).fail("unknown field (expected one of: " + join(names, ", ") + ")");
  }
}

std::vector<std::string> JsonNode::keys() const {
  require_object();
  std::vector<std::string> out;
  for (const auto& [k, v] : value_->items()) out.push_back(k);
  return out;
}

std::size_t JsonNode::size() const {
  require_array();
  return value_->size();
}

JsonNode JsonNode::at(std::size_t i) const {
  require_array();
  return JsonNode((*value_)[i], origin_, path_ + "[" + std::to_string(i) + "]");
}

std::string JsonNode::str() const {
  if (!value_->is_string()) fail("expected a string, got " + brief());
  std::string s = value_->get<std::string>();
  if (s.empty()) fail("must not be empty");
  return s;
}

std::int64_t JsonNode::integer(std::int64_t min_value) const {
  if (!value_->is_number_integer()) fail("expected an integer, got " + brief());
  std::int64_t v = value_->get<std::int64_t>();
  if (value_->is_number_unsigned() && value_->get<std::uint64_t>() > INT64_MAX)
    fail("integer out of range: " + brief());
  if (v < min_value) fail("must be at least " + std::to_string(min_value) + ", got " + brief());
  return v;
}

bool JsonNode::boolean() const {
  if (!value_->is_boolean()) fail("expected true or false, got " + brief());
  return value_->get<bool>();
}

std::string JsonNode::choice(std::string_view what, const std::vector<std::string>& choices) const {
  if (!value_->is_string()) fail("expected a string, got " + brief());
  std::string s = value_->get<std::string>();
  for (const auto& c : choices)
    if (c == s) return s;
  fail("unknown " + std::string(what) + " '" + s + "' (expected " + join(choices, "|") + ")");
}

std::string JsonNode::brief() const {
  std::string s = value_->dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return one_line(s);
}

nlohmann::json parse_json_text(std::string_view text, const std::string& origin) {
  return parse_json_limited(text, origin);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace attune::hw
