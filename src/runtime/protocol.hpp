// runtime/protocol.hpp — what the Runner and attune-worker say to each other.
//
// The runner writes a WorkerRequest as JSON to a file and passes its path as the worker's only
// argument; the worker prints one WorkerResult as JSON on stdout and exits 0. Anything else
// (a signal, another exit code, no JSON) means the candidate took the worker down.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attune::runtime {

inline constexpr int kProtocolVersion = 1;

struct WorkerRequest {
  std::string spec;  // print_spec(op)
  std::string so_path;
  std::string entry = "attune_kernel";
  std::string reference_path;  // raw bytes of the expected output tensor (its dtype, row-major)
  std::uint64_t seed = 1;
  double rtol = 1e-4;
  int warmup = 2;
  double warmup_s = 0;  // ... and untimed calls until this long has passed
  int min_repeats = 3;
  int max_repeats = 50;
  double min_repeat_s = 1e-3;
  double max_seconds = 2.0;
  double stable_tol = 0.02;
  bool recheck = true;
  double cutoff_s = 0;  // 0: none; else a first call slower than this is the only one timed
  double give_up_s = 0;  // 0: none; else timing stops once the running median passes this
};

struct WorkerResult {
  // "ok", "wrong_result", "runtime_error" (load failure), or "internal_error" (a bad request:
  // a bug in attune, not in the candidate).
  std::string status;
  std::string error;
  std::vector<double> times_s;
  double max_rel_error = 0;
  // Seconds spent in each step of the run ("setup", "load", "check", "warmup", "timing",
  // "recheck"): what a candidate's measurement costs, for the tune summary.
  std::map<std::string, double> phases_s;
};

// The median of the timings (the mean of the middle two for an even count); 0 for none.
inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2) return v[mid];
  const double upper = v[mid];
  return (*std::max_element(v.begin(), v.begin() + mid) + upper) / 2;
}

nlohmann::json to_json(const WorkerRequest& r);
WorkerRequest request_from_json(const nlohmann::json& j);  // throws Error on a bad request
nlohmann::json to_json(const WorkerResult& r);
WorkerResult result_from_json(const nlohmann::json& j);  // throws Error on a bad result

}  // namespace attune::runtime
