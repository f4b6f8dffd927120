// The schedule codec (schedule/schedule.hpp): the one place a schedule's JSON is written and read.
//
// Writing builds nlohmann values, whose dump() sorts keys: the field names and value types
// below are what keeps the text of every recorded schedule byte for byte (a pack always has its
// "layout", "padded" only when set; a tensorize step carries its own "schema_version").
// Reading checks each field's presence, type and range before using it, and an error names the
// text (`what`), the step and the field.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "ir/error.hpp"
#include "ir/json_limits.hpp"
#include "schedule/schedule.hpp"

namespace attune {

namespace {

using Json = nlohmann::json;

// nlohmann converts any number to an integer (1.5 -> 1, 1e300 -> undefined behaviour): an
// integer field must hold an integer that fits.
bool fits_integer(const Json& v, std::int64_t lo, std::int64_t hi) {
  if (v.is_number_unsigned()) {  // how nlohmann reads every integer without a sign
    const std::uint64_t u = v.get<std::uint64_t>();
    return hi >= 0 && u <= static_cast<std::uint64_t>(hi) && (lo <= 0 || u >= static_cast<std::uint64_t>(lo));
  }
  return v.is_number_integer() && v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
}

template <class T>
bool integers_fit(const Json& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    return fits_integer(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const Json& e) { return integers_fit<std::int64_t>(e); });
  } else {
    return true;
  }
}

template <class T>
T field(const Json& j, const char* name, const std::string& where) {
  if (!j.contains(name)) throw Error(where + ": missing field '" + name + "'");
  if (!integers_fit<T>(j.at(name)))
    throw Error(where + ": field '" + std::string(name) + "' must be an integer (or a list of integers) in range");
  try {
    return j.at(name).get<T>();
  } catch (const Json::exception&) {
    throw Error(where + ": field '" + std::string(name) + "' has the wrong type");
  }
}

void check_version(const Json& j, const std::string& where) {
  const int v = field<int>(j, "schema_version", where);
  if (v != kScheduleSchemaVersion)
    throw Error(where + ": schema_version " + std::to_string(v) + " is not supported (expected " +
                std::to_string(kScheduleSchemaVersion) + ")");
}

// ---- loop-nest steps ----

Json transform_json(const Transform& t) {
  Json j;
  j["kind"] = std::string(transform_kind_name(t.kind));
  switch (t.kind) {
    case TransformKind::split:
      j["loop"] = t.loop;
      j["factors"] = t.factors;
      break;
    case TransformKind::reorder: j["loops"] = t.loops; break;
    case TransformKind::pack:
      j["tensor"] = t.tensor;
      j["at"] = t.at;
      j["layout"] = t.layout;
      if (t.padded) j["padded"] = true;  // absent otherwise: older traces keep their text
      break;
    case TransformKind::cache_write:
    case TransformKind::compute_at:
      j["tensor"] = t.tensor;
      j["at"] = t.at;
      break;
    case TransformKind::compute_inline: j["tensor"] = t.tensor; break;
    default: j["loop"] = t.loop; break;
  }
  return j;
}

// `at` names the step ("trace: steps[3]").
Transform transform_from_json(const Json& j, const std::string& at) {
  if (!j.is_object()) throw Error(at + ": transformation: expected an object, got " + j.dump());
  const auto kind = field<std::string>(j, "kind", at + ": transformation");
  const std::string where = at + ": transformation '" + kind + "'";
  for (TransformKind k : all_transform_kinds()) {
    if (transform_kind_name(k) != kind) continue;
    Transform t;
    t.kind = k;
    switch (k) {
      case TransformKind::split:
        t.loop = field<std::string>(j, "loop", where);
        t.factors = field<std::vector<std::int64_t>>(j, "factors", where);
        break;
      case TransformKind::reorder: t.loops = field<std::vector<std::string>>(j, "loops", where); break;
      case TransformKind::pack:
        t.tensor = field<std::string>(j, "tensor", where);
        t.at = field<std::string>(j, "at", where);
        if (j.contains("layout")) t.layout = field<std::vector<std::string>>(j, "layout", where);
        if (j.contains("padded")) t.padded = field<bool>(j, "padded", where);
        break;
      case TransformKind::cache_write:
      case TransformKind::compute_at:
        t.tensor = field<std::string>(j, "tensor", where);
        t.at = field<std::string>(j, "at", where);
        break;
      case TransformKind::compute_inline: t.tensor = field<std::string>(j, "tensor", where); break;
      default: t.loop = field<std::string>(j, "loop", where); break;
    }
    return t;
  }
  throw Error(at + ": transformation: unknown kind '" + kind + "'");
}

// ---- the tensorize step ----

bool is_tensorize_step(const Json& j) {
  // Compared as JSON values: a "kind" of another type is simply not "tensorize".
  return j.is_object() && j.contains("kind") && j.at("kind") == "tensorize";
}

int register_block(const Json& s, const char* name, int hi, const std::string& where) {
  if (!s.contains(name) || !fits_integer(s.at(name), 1, hi))
    throw Error(where + ": field 'schedule." + name + "' must be an integer in 1.." + std::to_string(hi));
  return s.at(name).get<int>();
}

TensorizeStep tensorize_step_from_json(const Json& j, const std::string& at) {
  const std::string where = at + ": tensorize step";
  check_version(j, where);
  TensorizeStep s;
  s.intrinsic = field<std::string>(j, "intrinsic", where);
  s.mapping = field<int>(j, "mapping", where);
  if (j.contains("loops")) s.loops = field<std::map<std::string, std::vector<std::string>>>(j, "loops", where);
  if (j.contains("schedule")) {
    const Json& sj = j.at("schedule");
    if (!sj.is_object()) throw Error(where + ": field 'schedule' must be an object with 'rows', 'cols' and 'parallel'");
    TensorizeSchedule t;
    t.rows = register_block(sj, "rows", 16, where);
    t.cols = register_block(sj, "cols", 8, where);
    if (!sj.contains("parallel") || !sj.at("parallel").is_boolean())
      throw Error(where + ": field 'schedule.parallel' must be true or false");
    t.parallel = sj.at("parallel").get<bool>();
    s.schedule = t;
  }
  return s;
}

// ---- accelerator knobs ----

AcceleratorKnobs knobs_from_json(const Json& j, const std::string& what) {
  AcceleratorKnobs k;
  k.target = field<std::string>(j, "target", what);
  const auto& declared = accelerator_knobs(k.target);
  if (declared.empty()) throw Error(what + ": field 'target': '" + k.target + "' is no accelerator with knobs");
  if (!j.contains("knobs")) throw Error(what + ": missing field 'knobs'");
  const Json& values = j.at("knobs");
  if (!values.is_object()) throw Error(what + ": field 'knobs' must be an object of knob names and values");
  for (const auto& item : values.items()) {
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const std::string& name = item.key();
    const Json& value = item.value();
    const std::string f = what + ": field 'knobs." + name + "'";
    if (std::none_of(declared.begin(), declared.end(), [&](const AcceleratorKnob& d) { return d.name == name; })) {
      std::string names;
      for (const auto& d : declared) names += (names.empty() ? "" : ", ") + std::string(d.name);
      throw Error(f + ": " + k.target + " has no such knob (it has " + names + ")");
    }
    if (!fits_integer(value, 1, std::numeric_limits<std::int64_t>::max()))
      throw Error(f + " must be an integer >= 1, got " + value.dump());
    k.values[name] = value.get<std::int64_t>();
  }
  return k;
}

}  // namespace

Json to_json(const TensorizeStep& s) {
  Json j = {{"schema_version", kScheduleSchemaVersion},
            {"kind", "tensorize"},
            {"intrinsic", s.intrinsic},
            {"mapping", s.mapping}};
  if (s.loops) j["loops"] = *s.loops;
  if (s.schedule)
    j["schedule"] = {{"rows", s.schedule->rows}, {"cols", s.schedule->cols}, {"parallel", s.schedule->parallel}};
  return j;
}

Json to_json(const Schedule& s) {
  if (s.knobs) {
    ATTUNE_CHECK(s.nest.steps.empty() && !s.tensorize, "an accelerator's schedule is its knobs alone");
    return {{"schema_version", kScheduleSchemaVersion}, {"target", s.knobs->target}, {"knobs", s.knobs->values}};
  }
  Json steps = Json::array();
  for (const auto& t : s.nest.steps) steps.push_back(transform_json(t));
  if (s.tensorize) steps.push_back(to_json(*s.tensorize));
  return {{"schema_version", kScheduleSchemaVersion}, {"steps", steps}};
}

Schedule schedule_from_json(const Json& j, const std::string& what) {
  if (!j.is_object())
    throw Error(what + ": expected an object with 'schema_version' and 'steps' (or 'target' and 'knobs')");
  check_version(j, what);
  Schedule s;
  if (j.contains("target") || j.contains("knobs")) {
    if (j.contains("steps"))
      throw Error(what + ": has 'steps' and 'knobs': an accelerator's schedule is its knobs alone");
    s.knobs = knobs_from_json(j, what);
    return s;
  }
  if (!j.contains("steps")) throw Error(what + ": missing field 'steps'");
  const Json& steps = j.at("steps");
  if (!steps.is_array()) throw Error(what + ": field 'steps' must be an array");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string at = what + ": steps[" + std::to_string(i) + "]";
    if (s.tensorize) throw Error(at + ": follows the tensorize step, which ends a schedule");
    if (is_tensorize_step(steps[i]))
      s.tensorize = tensorize_step_from_json(steps[i], at);
    else
      s.nest.steps.push_back(transform_from_json(steps[i], at));
  }
  return s;
}

std::string schedule_to_string(const Schedule& s) { return to_json(s).dump(); }

Schedule schedule_from_string(std::string_view text, const std::string& what) {
  return schedule_from_json(parse_json_limited(text, what), what);
}

std::string trace_to_string(const Trace& t) { return schedule_to_string(Schedule{t}); }

Trace trace_from_string(std::string_view text) {
  Schedule s = schedule_from_string(text, "trace");
  if (s.knobs) throw Error("trace: accelerator knobs are not a loop-nest trace");
  if (s.tensorize) throw Error("trace: a tensorize step is not a loop-nest trace");
  return std::move(s.nest);
}

}  // namespace attune
