// json_out.cpp — the benches' JSON Lines output (json_out.hpp).
#include "json_out.hpp"

#include <cmath>

#include "ir/error.hpp"
#include "report/provenance.hpp"

namespace bench {

JsonLines::JsonLines(const std::string& path) {
  if (path.empty()) return;
  out_.open(path, std::ios::trunc);
  if (!out_) throw attune::Error("--json-out " + path + ": cannot create the file");
}

void JsonLines::write(const nlohmann::json& line) {
  if (!out_.is_open()) return;
  out_ << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  out_.flush();
}

std::string command_line(int argc, char** argv) { return attune::report::shell_command_line(argc, argv); }

nlohmann::json header_line(const std::string& kind, int argc, char** argv) {
  const auto b = attune::report::this_build();
  return {{"kind", kind}, {"command", command_line(argc, argv)}, {"commit", b.commit}, {"compiler", b.compiler}};
}

nlohmann::json number_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); }

}  // namespace bench
