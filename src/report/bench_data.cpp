// report/bench_data.cpp — reading the benches' JSON Lines files (bench_data.hpp).
#include "report/bench_data.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "ir/error.hpp"
#include "ir/json_limits.hpp"

namespace attune::report {

namespace {
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{256} << 20;
}

std::vector<const BenchLine*> BenchData::of_kind(const std::string& kind) const {
  std::vector<const BenchLine*> out;
  for (const auto& l : lines)
    if (l.j["kind"] == kind) out.push_back(&l);
  return out;
}

BenchData read_bench_files(const std::vector<std::string>& paths) {
  BenchData d;
  for (const auto& path : paths) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) throw Error("--bench " + path + ": no such file");
    if (std::filesystem::file_size(path, ec) > kMaxFileBytes)
      throw Error("--bench " + path + ": larger than 256 MiB; not a bench result");
    std::ifstream in(path);
    if (!in) throw Error("--bench " + path + ": cannot open");
    d.files.push_back(path);
    std::string text;
    for (int n = 1; std::getline(in, text); ++n) {
      if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
      const std::string where = path + ":" + std::to_string(n);
      nlohmann::json j = parse_json_limited(text, where);
      if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string())
        throw Error(where + ": not a bench result (a JSON object with a \"kind\")");
      d.lines.push_back({path, n, std::move(j)});
    }
  }
  return d;
}

double number_or_nan(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return NAN;
  const double x = j[key].get<double>();
  return std::isfinite(x) ? x : NAN;
}

std::string string_or_empty(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

}  // namespace attune::report
