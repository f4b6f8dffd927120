// hw/json_node.hpp — a cursor into a JSON document that knows where it is.
//
// Target files are validated field by field; every failure must read
// "<file>: <field.path>: <what is wrong>" on one line. JsonNode carries the file name and the
// path so each check can say exactly that without threading strings through every parser.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace attune::hw {

class JsonNode {
 public:
  JsonNode(const nlohmann::json& value, std::string origin, std::string path = {})
      : value_(&value), origin_(std::move(origin)), path_(std::move(path)) {}

  const nlohmann::json& raw() const { return *value_; }
  const std::string& origin() const { return origin_; }
  const std::string& path() const { return path_; }

  // Throws attune::Error "<origin>: <path>: <what>" (the path part is left out at the root).
  [[noreturn]] void fail(const std::string& what) const;

  // Object access. `get` requires the field; `find` returns nullopt when it is absent.
  bool has(std::string_view key) const;
  JsonNode get(std::string_view key) const;
  std::optional<JsonNode> find(std::string_view key) const;
  // Rejects fields outside `allowed` ("comment" is always allowed), naming the first stranger.
  void only_keys(std::initializer_list<std::string_view> allowed) const;
  std::vector<std::string> keys() const;  // in document order as nlohmann stores them (sorted)

  // Array access.
  std::size_t size() const;  // requires an array
  JsonNode at(std::size_t i) const;

  // Typed reads; each fails with "expected <kind>, got <value>".
  void require_object() const;
  void require_array() const;
  std::string str() const;  // a non-empty string
  std::int64_t integer(std::int64_t min_value) const;
  bool boolean() const;
  // One of `choices`; fails with "unknown <what> 'x' (expected a|b|c)".
  std::string choice(std::string_view what, const std::vector<std::string>& choices) const;

  // A short rendering of the value for messages (at most ~40 characters).
  std::string brief() const;

 private:
  JsonNode child(std::string_view key, const nlohmann::json& v) const;
  const nlohmann::json* value_;
  std::string origin_;
  std::string path_;
};

// Parses `text` as JSON; a syntax error becomes "<origin>: line L, column C: <what>".
nlohmann::json parse_json_text(std::string_view text, const std::string& origin);

// Reads a whole file; throws "<path>: cannot open file" when it cannot.
std::string read_text_file(const std::string& path);

}  // namespace attune::hw
