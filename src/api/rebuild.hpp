// api/rebuild.hpp — the kernel a tuning record measured, as an artifact to build again.
#pragma once

#include "codegen/artifact.hpp"
#include "db/db.hpp"
#include "hw/target.hpp"
#include "ir/op.hpp"

namespace attune {

// The C of CPU record `r` of `op`, lowered from its trace with the code generator options
// tune() measured it with. Throws Error when the trace no longer replays.
// It is rebuild_recorded() (tuner.hpp), which also checks the source against the hash tune()
// recorded, behind a check that this CPU can run the target.
Artifact rebuild_artifact(const Op& op, const Target& target, const Record& r);

}  // namespace attune
