// The one table of transformation kinds: name, legality check and application. Every kind is
// registered here explicitly; its machinery lives in its own file.
#include "attune/transform.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "attune/error.hpp"
#include "attune/json_limits.hpp"
#include "schedule/transforms.hpp"

namespace attune {

namespace {

struct KindEntry {
  TransformKind kind;
  std::string_view name;
  Applicability (*check)(const LoopNest&, const Transform&);
  LoopNest (*apply)(const LoopNest&, const Transform&);
};

constexpr KindEntry kKinds[] = {
    {TransformKind::split, "split", sched::split_check, sched::split_apply},
    {TransformKind::reorder, "reorder", sched::reorder_check, sched::reorder_apply},
    {TransformKind::fuse, "fuse", sched::fuse_check, sched::fuse_apply},
    {TransformKind::unroll, "unroll", sched::unroll_check, sched::annotate_apply},
    {TransformKind::vectorize, "vectorize", sched::vectorize_check, sched::annotate_apply},
    {TransformKind::parallel, "parallel", sched::parallel_check, sched::annotate_apply},
    {TransformKind::pack, "pack", sched::pack_check, sched::pack_apply},
    {TransformKind::cache_write, "cache_write", sched::cache_write_check, sched::cache_write_apply},
};

const KindEntry& entry(TransformKind k) {
  for (const auto& e : kKinds)
    if (e.kind == k) return e;
  ATTUNE_CHECK(false, "unregistered transformation kind");
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

}  // namespace

std::string_view transform_kind_name(TransformKind k) { return entry(k).name; }

const std::vector<TransformKind>& all_transform_kinds() {
  static const std::vector<TransformKind> kinds = [] {
    std::vector<TransformKind> v;
    for (const auto& e : kKinds) v.push_back(e.kind);
    return v;
  }();
  return kinds;
}

Transform Transform::split(std::string loop, std::vector<std::int64_t> factors) {
  Transform t;
  t.kind = TransformKind::split;
  t.loop = std::move(loop);
  t.factors = std::move(factors);
  return t;
}
Transform Transform::reorder(std::vector<std::string> loops) {
  Transform t;
  t.kind = TransformKind::reorder;
  t.loops = std::move(loops);
  return t;
}
namespace {
Transform on_loop(TransformKind k, std::string loop) {
  Transform t;
  t.kind = k;
  t.loop = std::move(loop);
  return t;
}
}  // namespace
Transform Transform::fuse(std::string loop) { return on_loop(TransformKind::fuse, std::move(loop)); }
Transform Transform::unroll(std::string loop) { return on_loop(TransformKind::unroll, std::move(loop)); }
Transform Transform::vectorize(std::string loop) {
  return on_loop(TransformKind::vectorize, std::move(loop));
}
Transform Transform::parallel(std::string loop) {
  return on_loop(TransformKind::parallel, std::move(loop));
}
Transform Transform::pack(std::string tensor, std::string at, std::vector<std::string> layout) {
  Transform t;
  t.kind = TransformKind::pack;
  t.tensor = std::move(tensor);
  t.at = std::move(at);
  t.layout = std::move(layout);
  return t;
}
Transform Transform::pack_padded(std::string tensor) {
  Transform t = pack(std::move(tensor), "root");
  t.padded = true;
  return t;
}
Transform Transform::cache_write(std::string tensor, std::string at) {
  Transform t;
  t.kind = TransformKind::cache_write;
  t.tensor = std::move(tensor);
  t.at = std::move(at);
  return t;
}

std::string Transform::str() const {
  const std::string n(transform_kind_name(kind));
  switch (kind) {
    case TransformKind::split: {
      std::string f;
      for (std::size_t i = 0; i < factors.size(); ++i) f += (i ? ", " : "") + std::to_string(factors[i]);
      return n + "(" + loop + ", [" + f + "])";
    }
    case TransformKind::reorder: return n + "(" + join(loops) + ")";
    case TransformKind::pack:
      return n + "(" + tensor + ", at " + at + (layout.empty() ? "" : ", layout [" + join(layout) + "]") +
             (padded ? ", padded" : "") + ")";
    case TransformKind::cache_write: return n + "(" + tensor + ", at " + at + ")";
    default: return n + "(" + loop + ")";
  }
}

Applicability applicable(const LoopNest& nest, const Transform& t) { return entry(t.kind).check(nest, t); }

LoopNest apply(const LoopNest& nest, const Transform& t) {
  const auto& e = entry(t.kind);
  if (auto a = e.check(nest, t); !a) throw Error(t.str() + " is not applicable: " + a.reason);
  return e.apply(nest, t);
}

// ---- JSON ------------------------------------------------------------------------------------

nlohmann::json to_json(const Transform& t) {
  nlohmann::json j;
  j["kind"] = std::string(transform_kind_name(t.kind));
  switch (t.kind) {
    case TransformKind::split: j["loop"] = t.loop; j["factors"] = t.factors; break;
    case TransformKind::reorder: j["loops"] = t.loops; break;
    case TransformKind::pack:
      j["tensor"] = t.tensor;
      j["at"] = t.at;
      j["layout"] = t.layout;
      if (t.padded) j["padded"] = true;  // absent otherwise: older traces keep their text
      break;
    case TransformKind::cache_write: j["tensor"] = t.tensor; j["at"] = t.at; break;
    default: j["loop"] = t.loop; break;
  }
  return j;
}

namespace {
// nlohmann converts any number to an integer (1.5 -> 1, 1e300 -> undefined behaviour): an
// integer field must hold an integer that fits.
bool fits_integer(const nlohmann::json& v, std::int64_t lo, std::int64_t hi) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi);
  return v.is_number_integer() && v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
}

template <class T>
bool integers_fit(const nlohmann::json& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    return fits_integer(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const nlohmann::json& e) { return integers_fit<std::int64_t>(e); });
  } else {
    return true;
  }
}

template <class T>
T field(const nlohmann::json& j, const char* name, const std::string& where) {
  if (!j.contains(name)) throw Error(where + ": missing field '" + name + "'");
  if (!integers_fit<T>(j.at(name)))
    throw Error(where + ": field '" + std::string(name) + "' must be an integer (or a list of integers) in range");
  try {
    return j.at(name).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(where + ": field '" + std::string(name) + "' has the wrong type");
  }
}
}  // namespace

Transform transform_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw Error("transformation: expected an object, got " + j.dump());
  const auto kind = field<std::string>(j, "kind", "transformation");
  const std::string where = "transformation '" + kind + "'";
  for (const auto& e : kKinds) {
    if (e.name != kind) continue;
    Transform t;
    t.kind = e.kind;
    switch (e.kind) {
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
        t.tensor = field<std::string>(j, "tensor", where);
        t.at = field<std::string>(j, "at", where);
        break;
      default: t.loop = field<std::string>(j, "loop", where); break;
    }
    return t;
  }
  throw Error("transformation: unknown kind '" + kind + "'");
}

nlohmann::json to_json(const Trace& t) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : t.steps) steps.push_back(to_json(s));
  return {{"schema_version", kTraceSchemaVersion}, {"steps", steps}};
}

Trace trace_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw Error("trace: expected an object with 'schema_version' and 'steps'");
  const int v = field<int>(j, "schema_version", "trace");
  if (v != kTraceSchemaVersion)
    throw Error("trace: schema_version " + std::to_string(v) + " is not supported (expected " +
                std::to_string(kTraceSchemaVersion) + ")");
  const auto& steps = j.contains("steps") ? j.at("steps") : throw Error("trace: missing field 'steps'");
  if (!steps.is_array()) throw Error("trace: field 'steps' must be an array");
  Trace t;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    try {
      t.steps.push_back(transform_from_json(steps[i]));
    } catch (const Error& e) {
      throw Error("trace: steps[" + std::to_string(i) + "]: " + e.what());
    }
  }
  return t;
}

std::string trace_to_string(const Trace& t) { return to_json(t).dump(); }

Trace trace_from_string(std::string_view text) {
  return trace_from_json(parse_json_limited(text, "trace"));
}

LoopNest replay(const Op& op, const Trace& t) {
  LoopNest nest = initial_nest(op);
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    if (auto a = applicable(nest, t.steps[i]); !a)
      throw Error("trace step " + std::to_string(i) + " " + t.steps[i].str() + " is not applicable: " + a.reason);
    nest = entry(t.steps[i].kind).apply(nest, t.steps[i]);
  }
  return nest;
}

}  // namespace attune
