// rebuild_artifact (api/rebuild.hpp).
#include "api/rebuild.hpp"

#include "ir/error.hpp"
#include "search/tuner.hpp"

namespace attune {

Artifact rebuild_artifact(const Op& op, const Target& target, const Record& r) {
  // Before anything is loaded: an AVX-512 kernel recorded on another machine would end the
  // user's process with SIGILL in the load-time check.
  if (const auto why = host_cannot_run(target); !why.empty()) throw Error(why);
  return rebuild_recorded(op, target, r);  // the measured kernel, checked by its hash
}

}  // namespace attune
