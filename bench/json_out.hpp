// json_out.hpp — the benches' --json-out FILE: their results as JSON Lines, one object a line,
// for `attune report --bench FILE` (src/report/bench_data.hpp lists the kinds and fields).
// Each line is written and flushed as soon as its result exists, so a run cut short keeps what
// it measured. Values that are not finite are written as null.
#pragma once

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace bench {

class JsonLines {
 public:
  JsonLines() = default;
  // Opens (truncates) `path`; an empty path writes nothing. Throws attune::Error when the file
  // cannot be created.
  explicit JsonLines(const std::string& path);
  void write(const nlohmann::json& line);
  bool enabled() const { return out_.is_open(); }

 private:
  std::ofstream out_;
};

// The program's command line, quoted where an argument needs it: the "command" of a header.
std::string command_line(int argc, char** argv);

// What every header line carries besides its own fields: command, commit, compiler.
nlohmann::json header_line(const std::string& kind, int argc, char** argv);

// A number, or null when it is not finite (NaN means "not measured" in the benches).
nlohmann::json number_or_null(double x);

}  // namespace bench
