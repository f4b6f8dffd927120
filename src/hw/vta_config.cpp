// Reading accelerator parameters (VTA's BATCH x BLOCK_IN x BLOCK_OUT) from a config file.
//
// The VTA config is owned by the VTA backend (targets/vta/default.json) and may spell a
// parameter several ways: "BATCH", "batch", or as a log2 "LOG_BATCH"; a split parameter such
// as BLOCK_IN may also come from a shared "BLOCK"/"LOG_BLOCK" (VTA's own config uses one
// LOG_BLOCK for both). Values are looked for at the top level, then one object level down.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <vector>

#include "hw/parse_parts.hpp"
#include "ir/error.hpp"

namespace attune::hw {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Spelling {
  std::string key;
  bool log2;
};

std::vector<Spelling> spellings(const std::string& param) {
  std::vector<std::string> stems{param};
  if (auto us = param.find('_'); us != std::string::npos) stems.push_back(param.substr(0, us));
  std::vector<Spelling> out;
  for (const auto& s : stems) {
    out.push_back({s, false});
    out.push_back({lower(s), false});
    out.push_back({"LOG_" + s, true});
    out.push_back({"log_" + lower(s), true});
  }
  return out;
}

std::optional<std::int64_t> lookup_in(const JsonNode& obj, const std::string& param) {
  for (const auto& sp : spellings(param)) {
    auto v = obj.find(sp.key);
    if (!v) continue;
    if (!sp.log2) return v->integer(1);
    std::int64_t e = v->integer(0);
    if (e > 20) v->fail("log2 value " + std::to_string(e) + " is too large");
    return std::int64_t{1} << e;
  }
  return std::nullopt;
}

std::optional<std::int64_t> lookup(const JsonNode& cfg, const std::string& param) {
  if (auto v = lookup_in(cfg, param)) return v;
  for (const auto& k : cfg.keys()) {
    JsonNode sub = cfg.get(k);
    if (!sub.raw().is_object()) continue;
    if (auto v = lookup_in(sub, param)) return v;
  }
  return std::nullopt;
}

}  // namespace

std::map<std::string, std::int64_t> resolve_config(const JsonNode& node, const TargetContext& ctx,
                                                   std::string& config_path) {
  node.only_keys({"ref", "defaults", "params"});
  std::map<std::string, std::int64_t> defaults;
  if (auto d = node.find("defaults")) {
    for (const auto& k : d->keys()) defaults[k] = d->get(k).integer(1);
  }
  // The parameters to read: those with defaults, plus any listed explicitly.
  std::vector<std::string> names;
  for (const auto& [k, v] : defaults) names.push_back(k);
  if (auto p = node.find("params")) {
    for (std::size_t i = 0; i < p->size(); ++i) {
      std::string n = p->at(i).str();
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  }
  if (names.empty()) node.fail("names no parameters (give 'defaults' or 'params')");

  config_path.clear();
  std::optional<JsonNode> ref = node.find("ref");
  if (!ref) {
    for (const auto& n : names)
      if (!defaults.count(n)) node.fail("no default for parameter '" + n + "' and no 'ref'");
    return defaults;
  }
  std::filesystem::path p = ref->str();
  if (p.is_relative()) p = std::filesystem::path(ctx.base_dir) / p;
  std::string path = p.lexically_normal().string();
  // The error_code form: a name too long for the file system (fuzz/corpus/target_loader/
  // regression-long-config-ref.json) or an unreadable directory is the file's problem to
  // report, not an exception of the library.
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
    ref->fail("cannot look for config file '" + path + "': " + ec.message());
  if (!exists) {
    // The referenced config may not be written yet: the inline defaults stand in for it.
    for (const auto& n : names)
      if (!defaults.count(n)) ref->fail("config file '" + path + "' not found and no default for '" + n + "'");
    return defaults;
  }
  nlohmann::json doc = parse_json_text(read_text_file(path), path);
  JsonNode cfg(doc, path);
  cfg.require_object();
  std::map<std::string, std::int64_t> out;
  for (const auto& n : names) {
    if (auto v = lookup(cfg, n)) {
      out[n] = *v;
    } else if (defaults.count(n)) {
      out[n] = defaults.at(n);
    } else {
      cfg.fail("no value for '" + n + "' (looked for " + n + ", LOG_" + n + " and lower case)");
    }
  }
  config_path = path;
  return out;
}

}  // namespace attune::hw
