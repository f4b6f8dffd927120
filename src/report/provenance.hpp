// report/provenance.hpp — what produced a report: this attune's version, commit and compiler,
// and the machine the report was made on (the data's own machine is in the bench files and
// the records: see page.cpp's provenance section).
#pragma once

#include <string>

namespace attune::report {

struct BuildInfo {
  std::string version;   // "0.1.0"
  std::string commit;    // `git describe --always --dirty` when the build was configured; "unknown" outside git
  std::string compiler;  // the compiler that built attune ("gcc 12.2.0")
};
BuildInfo this_build();

// "MODEL NAME, N logical CPUs" from /proc/cpuinfo; "unknown CPU" where it cannot be read.
std::string this_machine();

// The command line as a shell would take it back: arguments joined by spaces, each one with a
// space or a shell character in single quotes (a quote inside as '\'').
std::string shell_command_line(int argc, char** argv);

}  // namespace attune::report
