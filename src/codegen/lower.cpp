// lower() (codegen/codegen.hpp): a schedule onto the backend of its target.
#include "codegen/codegen.hpp"

#include "codegen/codegen_cpu.hpp"
#include "codegen/codegen_cpu_tensorize.hpp"
#include "codegen/codegen_cuda.hpp"
#include "ir/error.hpp"

namespace attune {

namespace {

std::string kind_of(const Target& t) { return std::string(target_kind_name(t.kind)); }

Lowered lower_for_cpu(const Schedule& s, const Op& op, const Target& target) {
  if (s.knobs)
    throw Error("cpu target " + target.name + " has no accelerator knobs (the schedule sets " + s.knobs->target +
                "'s)");
  CpuCodegenOptions o = cpu_codegen_options(target);
  Lowered out;
  if (s.tensorize) {
    // Tensorize is applied at code-generation level (tensorize.hpp): no loop-nest step can
    // come before it.
    if (!s.nest.steps.empty())
      throw Error("a tensorize step on the CPU ends a schedule of no loop-nest steps; this one has " +
                  std::to_string(s.nest.steps.size()));
    out.artifact = lower_cpu_tensorized(tensorize_plan(op, target, *s.tensorize), o.flags);
    return out;
  }
  // The header comment shows the schedule re-serialised from what was parsed, never a record's
  // own text: keys attune does not read (and whatever they hold) are not carried into C.
  o.trace_json = schedule_to_string(s);
  out.artifact = lower_cpu(replay(op, s.nest), o);
  return out;
}

Lowered lower_for_cuda(const Schedule& s, const Op& op, const Target& target) {
  Lowered out;
  if (op.multi_stage()) {
    // Multi-stage ops are lowered as they are, one kernel per stage: nothing schedules them yet.
    if (s.tensorize || !s.nest.steps.empty() || s.knobs)
      throw Error("cuda target " + target.name +
                  " lowers a multi-stage op unscheduled (one kernel per stage; no "
                  "loop-nest, tensorize or knob steps)");
    out.artifact = lower_cuda_stages(op);
    return out;
  }
  if (!s.tensorize || !s.nest.steps.empty())
    throw Error("cuda target " + target.name + " lowers a tensorize step alone (no loop-nest steps, no knobs)");
  out.artifact = lower_cuda(tensorize_plan(op, target, *s.tensorize));
  return out;
}

Lowered lower_for_vta(const Schedule& s, const Op& op, const LowerOptions& options) {
  if (!s.knobs) throw Error("vta targets are scheduled by knobs, not by loop-nest or tensorize steps");
  const VtaConfig cfg = options.vta ? *options.vta : vta_config_for("vta");
  Lowered out;
  out.artifact.language = "vta";
  out.vta = std::make_shared<const VtaCompiled>(compile_vta(op, VtaKnobs::of(*s.knobs), cfg));
  return out;
}

}  // namespace

Lowered lower(const Schedule& s, const Op& op, const Target& target, const LowerOptions& options) {
  switch (target.kind) {
    case TargetKind::cpu: return lower_for_cpu(s, op, target);
    case TargetKind::cuda: return lower_for_cuda(s, op, target);
    case TargetKind::vta: return lower_for_vta(s, op, options);
  }
  throw Error("target " + target.name + " (" + kind_of(target) + ") has no backend");
}

}  // namespace attune
