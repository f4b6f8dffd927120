// cli_spec.cpp — op_from_cli() and load_workload_file(): every way the command line may name an
// op (workload line, template call, raw spec, spec file, workload name), tried in that order.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "ir/error.hpp"
#include "ir/names.hpp"
#include "ir/op.hpp"

namespace attune {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(std::string_view s, std::string_view seps) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && seps.find(s[i]) != std::string_view::npos) ++i;
    std::size_t b = i;
    while (i < s.size() && seps.find(s[i]) == std::string_view::npos) ++i;
    if (i > b) out.emplace_back(s.substr(b, i - b));
  }
  return out;
}

constexpr std::string_view kBlank = " \t\r\n";

bool is_template(std::string_view n) {
  const auto& ts = list_templates();
  return std::any_of(ts.begin(), ts.end(), [&](const TemplateInfo& t) { return t.name == n; });
}

bool all_key_values(const std::vector<std::string>& toks, std::size_t from) {
  for (std::size_t i = from; i < toks.size(); ++i)
    if (toks[i].find('=') == std::string::npos) return false;
  return true;
}

std::map<std::string, std::string> key_values(const std::vector<std::string>& toks, std::size_t from) {
  std::map<std::string, std::string> kv;
  for (std::size_t i = from; i < toks.size(); ++i) {
    auto eq = toks[i].find('=');
    if (eq == std::string::npos || eq == 0) throw Error("expected key=value, got '" + toks[i] + "'");
    std::string k = toks[i].substr(0, eq);
    if (!kv.emplace(k, toks[i].substr(eq + 1)).second) throw Error("parameter '" + k + "' given twice");
  }
  return kv;
}

// "name op key=value ..." already split into tokens.
Op workload_op(const std::vector<std::string>& toks) {
  if (toks.size() < 2) throw Error("expected 'name op key=value ...'");
  if (auto why = label_problem(toks[0])) throw Error("workload name '" + toks[0] + "' " + *why);
  Op op = instantiate_template(toks[1], key_values(toks, 2));
  op.name = toks[0];
  return op;
}

// The tokens of a workload file line, without its comment; empty for a blank line.
std::vector<std::string> line_tokens(const std::string& line) {
  return split(std::string_view(line).substr(0, line.find('#')), kBlank);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Workload files in look-up order: $ATTUNE_WORKLOADS (a file or a folder of .txt files), then
// the shared workloads beside the source tree.
std::vector<std::string> workload_files(std::vector<std::string>& searched) {
  std::vector<std::string> files;
  auto add_place = [&](const std::string& place) {
    searched.push_back(place);
    std::error_code ec;
    if (fs::is_regular_file(place, ec)) {
      files.push_back(place);
      return;
    }
    if (!fs::is_directory(place, ec)) return;
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(place, ec))
      if (e.path().extension() == ".txt") found.push_back(e.path().string());
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  };
  if (const char* env = std::getenv("ATTUNE_WORKLOADS"); env && *env) add_place(env);
#ifdef ATTUNE_SOURCE_DIR
  add_place(std::string(ATTUNE_SOURCE_DIR) + "/bench/workloads");
#endif
  return files;
}

std::optional<Op> find_workload(const std::string& name, std::vector<std::string>& searched) {
  for (const auto& path : workload_files(searched)) {
    std::ifstream in(path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      auto toks = line_tokens(line);
      if (toks.empty() || toks[0] != name) continue;
      try {
        return workload_op(toks);
      } catch (const Error& e) {
        throw Error(path + ":" + std::to_string(n) + ": " + e.what());
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<Op> load_workload_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open workload file '" + path + "'");
  std::vector<Op> ops;
  std::map<std::string, int> seen;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    auto toks = line_tokens(line);
    if (toks.empty()) continue;
    std::string where = path + ":" + std::to_string(n) + ": ";
    if (auto it = seen.find(toks[0]); it != seen.end())
      throw Error(where + "duplicate workload name '" + toks[0] + "' (first on line " + std::to_string(it->second) +
                  ")");
    seen.emplace(toks[0], n);
    try {
      ops.push_back(workload_op(toks));
    } catch (const Error& e) {
      throw Error(where + e.what());
    }
  }
  return ops;
}

Op op_from_cli(std::string_view arg_in) {
  std::string arg(arg_in);
  auto toks = split(arg, kBlank);
  if (toks.empty()) throw Error("empty op spec");
  const bool bracket = arg.find('[') != std::string::npos;

  // 1. a workload line: "gemm_512  gemm  M=512 N=512 K=512"
  if (!bracket && toks.size() >= 2 && is_template(toks[1]) && all_key_values(toks, 2)) return workload_op(toks);

  // 2. a template call: "conv2d:N=1,H=56,..." or "gemm M=4 N=4 K=4"
  if (!bracket) {
    auto colon = toks[0].find(':');
    if (colon != std::string::npos && is_template(toks[0].substr(0, colon))) {
      std::vector<std::string> kv = split(arg.substr(arg.find(':') + 1), std::string(kBlank) + ",");
      return instantiate_template(toks[0].substr(0, colon), key_values(kv, 0));
    }
    if (is_template(toks[0]) && all_key_values(toks, 1)) return instantiate_template(toks[0], key_values(toks, 1));
  }

  // 3. a raw spec
  if (bracket && arg.find("+=") != std::string::npos) return parse_spec(arg);

  // 4. a file holding a raw spec
  std::error_code ec;
  if (toks.size() == 1 && fs::is_regular_file(arg, ec)) {
    std::string text = read_file(arg);
    try {
      return parse_spec(text);
    } catch (const Error& e) {
      throw Error(arg + ":" + e.what());
    }
  }

  // 5. a workload name
  std::vector<std::string> searched;
  if (toks.size() == 1)
    if (auto op = find_workload(toks[0], searched)) return *op;

  std::string templates;
  for (const auto& t : list_templates()) templates += (templates.empty() ? "" : ", ") + t.name;
  std::string places;
  for (const auto& s : searched) places += (places.empty() ? "" : ", ") + s;
  throw Error("cannot understand op spec '" + arg +
              "': tried a workload line ('name op key=value ...'), a template call ('op:key=value,...' with "
              "templates " +
              templates +
              "), a raw spec (needs '[' and '+='), a spec file (no such file), and a "
              "workload name (searched: " +
              (places.empty() ? std::string("nothing") : places) + ")");
}

}  // namespace attune
