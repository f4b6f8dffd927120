// cli_common.cpp — helpers shared by the subcommands (see cli_common.hpp).
#include "cli/cli_common.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/error.hpp"
#include "ir/json_limits.hpp"
#include "report/provenance.hpp"
#include "runtime/memory_estimate.hpp"

namespace attune::cli {

namespace fs = std::filesystem;

std::string json_text_or_file(const std::string& arg, const std::string& what) {
  const auto first = arg.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw Error(what + ": empty value");
  if (arg[first] == '{' || arg[first] == '[') return arg;
  std::error_code ec;
  if (!fs::is_regular_file(arg, ec)) throw Error(what + ": '" + arg + "' is neither inline JSON nor a readable file");
  std::ifstream in(arg, std::ios::binary);
  if (!in) throw Error(what + ": cannot open '" + arg + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Schedule schedule_from_arg(const std::string& arg) {
  const std::string text = json_text_or_file(arg, "--trace");
  nlohmann::json j = parse_json_limited(text, "--trace");
  if (j.is_array()) j = {{"schema_version", kScheduleSchemaVersion}, {"steps", j}};
  return schedule_from_json(j, "--trace");
}

std::string target_arg(const std::string& arg) {
  const auto slash = arg.find('/');
  std::error_code ec;
  if (slash == std::string::npos || fs::exists(arg, ec)) return arg;
  const std::string kind = arg.substr(0, slash), name = arg.substr(slash + 1);
  const bool is_kind = kind == target_kind_name(TargetKind::cpu) || kind == target_kind_name(TargetKind::cuda) ||
                       kind == target_kind_name(TargetKind::vta);
  if (!is_kind || name.empty() || name.find('/') != std::string::npos) return arg;  // a path after all
  const Target t = load_target(name);
  if (target_kind_name(t.kind) != kind)
    throw Error("target '" + arg + "': " + t.name + " is a " + std::string(target_kind_name(t.kind)) + " target, not " +
                kind);
  return name;
}

Target load_target_arg(const std::string& arg) { return load_target(target_arg(arg)); }

void check_max_memory(const Op& op, const std::string& max_memory_arg) {
  check_memory_limit(op,
                     max_memory_arg.empty() ? default_memory_limit() : parse_byte_size(max_memory_arg, "--max-memory"));
}

namespace {
std::string& recorded_command_line() {
  static std::string s;
  return s;
}
}  // namespace

void set_command_line(int argc, char** argv) { recorded_command_line() = report::shell_command_line(argc, argv); }

const std::string& command_line() { return recorded_command_line(); }

RunInfo this_run() {
  const report::BuildInfo b = report::this_build();
  RunInfo r;
  r.command = command_line();
  r.attune = b.version + ", commit " + b.commit + ", " + b.compiler;
  r.machine = report::this_machine();
  return r;
}

std::string one_line(const std::string& text, std::size_t max_chars) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\n') {
      if (!out.empty() && out.back() != ' ') out += " | ";
    } else if (c != '\r') {
      out += c;
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '|')) out.pop_back();
  if (max_chars && out.size() > max_chars) out = out.substr(0, max_chars) + " ...";
  return out;
}

std::string fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string format_time(double s) {
  if (s >= 1) return fixed(s, 2) + " s";
  if (s >= 1e-3) return fixed(s * 1e3, 3) + " ms";
  return fixed(s * 1e6, 1) + " us";
}

std::string format_duration(double s) {
  if (s < 0) return "?";
  const long t = static_cast<long>(s + 0.5);
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write '" + tmp + "'");
    out << text;
    if (!out.flush()) throw Error("cannot write '" + tmp + "'");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw Error("cannot write '" + path + "'");
  }
}

}  // namespace attune::cli
