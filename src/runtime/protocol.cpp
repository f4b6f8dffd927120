#include "runtime/protocol.hpp"

#include <cmath>
#include <limits>

#include "ir/error.hpp"

namespace attune::runtime {

namespace {

void check_version(const nlohmann::json& j, const char* what) {
  if (!j.is_object() || j.value("schema_version", 0) != kProtocolVersion)
    throw Error(std::string("attune-worker ") + what + ": expected a JSON object with schema_version " +
                std::to_string(kProtocolVersion));
}

}  // namespace

nlohmann::json to_json(const WorkerRequest& r) {
  return {{"schema_version", kProtocolVersion},
          {"spec", r.spec},
          {"so_path", r.so_path},
          {"entry", r.entry},
          {"reference_path", r.reference_path},
          {"seed", r.seed},
          {"rtol", r.rtol},
          {"warmup", r.warmup},
          {"warmup_s", r.warmup_s},
          {"min_repeats", r.min_repeats},
          {"max_repeats", r.max_repeats},
          {"min_repeat_s", r.min_repeat_s},
          {"max_seconds", r.max_seconds},
          {"stable_tol", r.stable_tol},
          {"recheck", r.recheck},
          {"cutoff_s", r.cutoff_s},
          {"give_up_s", r.give_up_s}};
}

WorkerRequest request_from_json(const nlohmann::json& j) {
  check_version(j, "request");
  try {
    WorkerRequest r;
    r.spec = j.at("spec").get<std::string>();
    r.so_path = j.at("so_path").get<std::string>();
    r.entry = j.at("entry").get<std::string>();
    r.reference_path = j.at("reference_path").get<std::string>();
    r.seed = j.at("seed").get<std::uint64_t>();
    r.rtol = j.at("rtol").get<double>();
    r.warmup = j.at("warmup").get<int>();
    r.warmup_s = j.value("warmup_s", 0.0);
    r.min_repeats = j.at("min_repeats").get<int>();
    r.max_repeats = j.at("max_repeats").get<int>();
    r.min_repeat_s = j.at("min_repeat_s").get<double>();
    r.max_seconds = j.at("max_seconds").get<double>();
    r.stable_tol = j.at("stable_tol").get<double>();
    r.recheck = j.at("recheck").get<bool>();
    r.cutoff_s = j.value("cutoff_s", 0.0);
    r.give_up_s = j.value("give_up_s", 0.0);
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("attune-worker request: ") + e.what());
  }
}

nlohmann::json to_json(const WorkerResult& r) {
  return {
      {"schema_version", kProtocolVersion},
      {"status", r.status},
      {"error", r.error},
      {"times_s", r.times_s},
      // JSON has no NaN or infinity (a kernel that writes NaN makes the error infinite).
      {"max_rel_error", std::isfinite(r.max_rel_error) ? nlohmann::json(r.max_rel_error) : nlohmann::json(nullptr)},
      {"phases_s", r.phases_s}};
}

WorkerResult result_from_json(const nlohmann::json& j) {
  check_version(j, "result");
  try {
    WorkerResult r;
    r.status = j.at("status").get<std::string>();
    r.error = j.at("error").get<std::string>();
    r.times_s = j.at("times_s").get<std::vector<double>>();
    const auto& err = j.at("max_rel_error");
    r.max_rel_error = err.is_null() ? std::numeric_limits<double>::infinity() : err.get<double>();
    if (j.contains("phases_s")) r.phases_s = j.at("phases_s").get<std::map<std::string, double>>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("attune-worker result: ") + e.what());
  }
}

}  // namespace attune::runtime
