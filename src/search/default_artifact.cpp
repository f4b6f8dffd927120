// default_artifact.cpp — the untuned kernel of a task (tuner.hpp).
//
// The spaces' seed configs are the micro-kernels the code generator is known to run well, so
// the first one that applies is a far better start than the plain loop nest; none is assumed
// to apply to every shape, hence the fallback.
#include "codegen/codegen.hpp"
#include "ir/error.hpp"
#include "ir/fold_epilogue.hpp"
#include "search/tuner.hpp"

namespace attune {

Artifact default_artifact(const Op& op, const Target& target, int threads) {
  const VectorRegisters vectors = cpu_vector_registers(target);
  const auto space = op.multi_stage() && !fold_epilogue(op) ? make_stage_space(op, threads, vectors)
                                                             : make_cpu_space(op, threads, vectors);
  for (const Config& c : space->seed_configs()) {
    try {
      return lower(space->schedule(c), op, target).artifact;
    } catch (const Error&) {
      // this seed does not apply to the shape: try the next
    }
  }
  return lower(Schedule{}, op, target).artifact;
}

}  // namespace attune
