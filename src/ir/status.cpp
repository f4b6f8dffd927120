#include "ir/measure.hpp"

namespace attune {

namespace {
constexpr std::pair<Status, std::string_view> kNames[] = {
    {Status::ok, "ok"},
    {Status::invalid, "invalid"},
    {Status::compile_error, "compile_error"},
    {Status::runtime_error, "runtime_error"},
    {Status::timeout, "timeout"},
    {Status::wrong_result, "wrong_result"},
};
}  // namespace

std::string_view status_name(Status s) {
  for (const auto& [st, name] : kNames)
    if (st == s) return name;
  return "unknown";
}

std::optional<Status> parse_status(std::string_view n) {
  for (const auto& [st, name] : kNames)
    if (name == n) return st;
  return std::nullopt;
}

}  // namespace attune
