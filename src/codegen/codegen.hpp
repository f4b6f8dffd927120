// codegen/codegen.hpp — the one way from a schedule (schedule.hpp) to what a backend builds.
//
//   lower(schedule, op, target) by the target's kind and what the schedule holds:
//     cpu  + loop-nest steps  ->  lower_cpu(replay(op, steps), cpu_codegen_options(target)),
//                                 the schedule's text in the C's header comment
//     cpu  + tensorize step   ->  lower_cpu_tensorized(plan, cpu_codegen_options(target).flags)
//     cuda + tensorize step   ->  lower_cuda(plan)
//     cuda + multi-stage op   ->  lower_cuda_stages(op), with an empty schedule
//     vta  + knobs            ->  compile_vta(op, knobs, the VTA configuration)
// Whatever tuned a schedule, rebuilds its record, emits a library or prints C for people goes
// through here, so the kernel a record measured is the kernel every later user gets (the
// record keeps the hash of the C; rebuild_recorded in tuner.hpp compares it).
// Tests: tests/codegen/lower_test.cpp.
#pragma once

#include <memory>

#include "codegen/artifact.hpp"
#include "codegen/codegen_vta.hpp"
#include "hw/target.hpp"
#include "ir/op.hpp"
#include "schedule/schedule.hpp"

namespace attune {

struct LowerOptions {
  // vta targets: the accelerator configuration ("vta:NAME"); null: vta_config_for("vta").
  const VtaConfig* vta = nullptr;
};

struct Lowered {
  Artifact artifact;                       // cpu, cuda: the source and its flags
  std::shared_ptr<const VtaCompiled> vta;  // vta: the program (ok, or a compile_error status)
};

// Throws Error when the schedule no longer replays (a step that does not apply, a mapping that
// changed) or when the target's backend has no such schedule (loop-nest steps for a cuda or vta
// target, knobs for a cpu one, a tensorize step after loop-nest steps).
Lowered lower(const Schedule& s, const Op& op, const Target& target, const LowerOptions& options = {});

}  // namespace attune
