// ir/measure.hpp — the closed set of outcomes of trying one candidate, and its measurement.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attune {

enum class Status {
  ok,             // ran, matched the reference, timed
  invalid,        // refused by legality before building (a transformation's applicable() said no)
  compile_error,  // the backend or the compiler failed
  runtime_error,  // crashed (signal, with its name) or the simulator raised an error
  timeout,        // exceeded the wall-clock limit
  wrong_result,   // output differs from the reference evaluator
};

std::string_view status_name(Status s);                // "ok", "compile_error", ...
std::optional<Status> parse_status(std::string_view);  // inverse of status_name

struct Measurement {
  Status status = Status::ok;
  std::string error;            // compiler output, signal name, mismatch report; empty when ok
  std::vector<double> times_s;  // every timed repeat, in order (warm-up runs excluded)
  double median_s = 0;          // median of times_s (0 unless ok)
  double max_rel_error = 0;     // from the reference comparison, when one ran
  double compile_s = 0;         // time spent building (0 when the build was cached)
  // Wall seconds per step of measuring it ("spawn", "setup", "load", "check", "warmup",
  // "timing", "recheck" for the worker process; none from the simulator): the tune
  // summary's per-candidate breakdown. Not stored in records.
  std::map<std::string, double> phases_s;
  bool ok() const { return status == Status::ok; }
};

}  // namespace attune
