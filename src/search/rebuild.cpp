// rebuild_recorded (search/tuner.hpp): the artifact a record measured, rebuilt and checked.
//
// Every later user of a tuned kernel (libgen, `attune best`, the benches, the demo, the C++ API)
// rebuilds it from the record's trace. A kernel that comes out different from the one measured
// (another vector width, other flags, a code generator that changed since) would hand the user
// a kernel nobody timed, so the rebuilt source is compared with the hash tune() stored.
#include "codegen/codegen.hpp"
#include "ir/error.hpp"
#include "search/tuner.hpp"

namespace attune {

void note_measured_artifact(Record& r, const Artifact& a) {
  if (a.source.empty()) return;
  if (!r.features.is_object()) r.features = nlohmann::json::object();
  r.features[kSourceHashFeature] = content_hash(a.source);
  r.flags = a.flags;
}

Artifact rebuild_recorded(const Op& op, const Target& target, const Record& r, RebuildCheck check) {
  if (target.kind != TargetKind::cpu)
    throw Error("record " + std::to_string(r.id) + ": only kernels of cpu targets are rebuilt (" + target.name +
                " is a " + std::string(target_kind_name(target.kind)) + " target)");
  Artifact a;
  try {
    a = lower(schedule_from_string(r.trace, "trace"), op, target).artifact;
  } catch (const Error& e) {
    throw Error("record " + std::to_string(r.id) + " no longer replays: " + e.what());
  }
  const bool has_hash =
      r.features.is_object() && r.features.contains(kSourceHashFeature) && r.features[kSourceHashFeature].is_string();
  if (!has_hash) return a;  // written before attune recorded what it measured: nothing to check
  const std::string want = r.features[kSourceHashFeature].get<std::string>();
  if (content_hash(a.source) != want)
    throw Error("record " + std::to_string(r.id) + ": the kernel rebuilt from its trace is not the one measured " +
                "(source hash " + content_hash(a.source).substr(0, 12) + ", recorded " + want.substr(0, 12) +
                "): the code generator or the target's vector width changed since; tune again");
  if (check == RebuildCheck::source_and_flags && a.flags != r.flags) {
    const auto joined = [](const std::vector<std::string>& flags) {
      std::string s;
      for (const auto& f : flags) s += (s.empty() ? "" : " ") + f;
      return s;
    };
    throw Error("record " + std::to_string(r.id) + ": the kernel would be compiled with other flags than when " +
                "it was measured (now '" + joined(a.flags) + "', measured with '" + joined(r.flags) +
                "'): the target file changed since; tune again");
  }
  return a;
}

}  // namespace attune
