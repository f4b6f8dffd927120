// tune(): chooses the engine's parts for an op, a target and a strategy, and runs the loop
// (engine.hpp, engine.cpp). Which parts:
//   target        Builder + Runner
//   cpu           the C compiler + the isolated worker process (cpu_backend.cpp)
//   vta[:CONFIG]  the VTA compiler + the simulator (vta_backend.cpp)
//   --workers remote  nothing here + the job queue (remote.cpp): `attune worker`s build and measure
//   strategy      Proposer
//   rl            the RL agent's traces (rl_proposer.cpp)
//   any other     a knob strategy over a Space (space_proposer.cpp): the CPU loop-nest space,
//                 the mapping space (loop nests and mappings onto the target's intrinsics,
//                 shared by a bandit), or the VTA knobs
#include <algorithm>
#include <thread>

#include "codegen/codegen_vta.hpp"
#include "hw/target.hpp"
#include "ir/error.hpp"
#include "ir/fold_epilogue.hpp"
#include "runtime/interrupt.hpp"
#include "search/engine.hpp"
#include "search/tuner.hpp"

namespace attune {

namespace {

// The CPU space tune() searches for `o.mappings` (TuneOptions): the loop-nest space alone, or
// the mapping space when there is something to map and the strategy can share a budget.
std::unique_ptr<Space> choose_cpu_space(const Op& op, const Target& target, const TuneOptions& o, int threads) {
  const std::string& m = o.mappings;
  if (m != "auto" && m != "on" && m != "off" && m != "only")
    throw Error("--mappings '" + m + "': expected auto, on, off or only");
  const VectorRegisters vectors = cpu_vector_registers(target);
  if (op.multi_stage()) {
    if (m == "on" || m == "only")
      throw Error("--mappings " + m + ": op '" + op.name +
                  "' is a multi-stage op; mappings onto intrinsics apply to contractions");
    // A contraction with pointwise statements after it is scheduled as that contraction.
    return fold_epilogue(op) ? make_cpu_space(op, threads, vectors) : make_stage_space(op, threads, vectors);
  }
  if (m == "off") return make_cpu_space(op, threads, vectors);
  const bool shares = o.strategy == "random" || o.strategy == "evolutionary";
  if (m == "auto" && !shares) return make_cpu_space(op, threads, vectors);
  if (!shares)
    throw Error("--mappings " + m + ": strategy '" + o.strategy +
                "' cannot search a space of mappings (it ranks the configs of one space): use --strategy "
                "evolutionary or random, or --mappings off");
  MappingSpaceOptions mo;
  mo.with_nest = m != "only";
  mo.max_mappings = o.max_mappings;
  mo.threads = threads;
  mo.vectors = vectors;
  auto s = make_mapping_space(op, target, mo);
  if (mo.with_nest && s->knobs().front().choices.size() == 1)
    return make_cpu_space(op, threads, vectors);  // nothing mapped
  return s;
}

}  // namespace

std::string tuning_target_name(const std::string& target_arg) {
  // VTA: "vta:NAME" / "vta:PATH" name a config, not a target file.
  if (!is_vta_target_arg(target_arg)) return load_target(target_arg).name;
  const VtaConfig cfg = vta_config_for(target_arg);
  return cfg.name == "default" ? "vta" : "vta:" + cfg.name;
}

namespace {

// A run interrupted before its engine started: nothing measured, the task as the database has it.
TuneResult stopped_before_start(Database& db, const TaskInfo& task, int threads, int sig) {
  TuneResult r;
  r.db = db.path();
  r.task_id = task.id;
  const auto counts = db.counts(task.id);
  r.trials_before = r.trials_total = static_cast<int>(counts.trials);
  r.valid = static_cast<int>(counts.valid);
  r.best = best_measured_at(db, task.id, threads);
  r.interrupted = sig;
  return r;
}

}  // namespace

TuneResult tune(const Op& op, const TuneOptions& o) {
  const bool vta = is_vta_target_arg(o.target);
  const Target target = load_target(vta ? std::string("vta") : o.target);
  if (target.kind != TargetKind::cpu && !vta)
    throw Error("tuning on target '" + target.name + "' is not available yet: only cpu targets are measured");
  if (const auto why = host_cannot_run(target); !vta && !why.empty()) throw Error(why);
  if (vta && o.strategy == "rl")
    throw Error("strategy rl tunes loop-nest schedules; VTA targets use knobs (try evolutionary)");
  if (vta && (o.mappings == "on" || o.mappings == "only"))
    throw Error("--mappings " + o.mappings +
                ": on VTA the op is mapped onto the GEMM core by the VTA knobs themselves");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = effective_threads(o.threads);

  const VtaConfig vta_cfg = vta ? vta_config_for(o.target) : VtaConfig{};
  const bool remote = o.workers == "remote";
  if (!remote && o.workers != "local") throw Error("--workers '" + o.workers + "': expected local or remote");
  if (remote && o.strategy == "ml2")
    throw Error(
        "--workers remote: strategy ml2 builds its candidates here to choose among them; use random, "
        "evolutionary or xgb");

  // The space and strategy first: bad options are refused before the database is touched.
  std::unique_ptr<Space> space;
  std::unique_ptr<Strategy> strategy;
  if (o.strategy != "rl") {
    space = vta ? make_vta_space(op, vta_cfg) : choose_cpu_space(op, target, o, threads);
    strategy = space->arm_knob() >= 0 ? make_arm_bandit(o.strategy) : make_strategy(o.strategy);
  }
  Database db = Database::open(o.db_path, OpenMode::read_write_create);
  const TaskInfo task = db.get_or_create_task(op.name, canonical_spec(op), tuning_target_name(o.target));
  if (!o.run.command.empty()) db.add_run(o.run);

  engine::Parts parts;
  parts.jobs = cores;
  try {
    parts.proposer = space ? engine::make_space_proposer(std::move(space), std::move(strategy), db, task, task.target)
                           : engine::make_rl_proposer(op, target, threads, o.policy, o.seed, db, task);
    if (remote) {
      // Workers of the task's target (its device key) build and measure; this process searches.
      parts.builder = engine::make_remote_builder();
      parts.runner = engine::make_remote_runner(db, task, task.target, threads, o.seed + 1);
    } else if (vta) {
      parts.builder = engine::make_vta_builder(op, target, vta_cfg, cores);
      parts.runner = engine::make_simulator_runner(op, vta_cfg, cores, o.seed + 1);
    } else {
      parts.builder = engine::make_c_builder(op, target);
      parts.runner = engine::make_worker_runner(op, threads, o.seed + 1);
    }
  } catch (const Error&) {
    // A SIGINT while the parts start (the compiler's --version probe is a child the interrupt
    // stops) is the user stopping the run, not a broken compiler: report it as a stop.
    if (const int sig = interrupted()) return stopped_before_start(db, task, vta ? 0 : threads, sig);
    throw;
  }
  // Zero-shot times its one pick and nothing else: no confirmation re-measurements.
  TuneOptions run_options = o;
  if (o.strategy == "predict") run_options.confirm_top = 0;
  // The count every record says it was measured at, and whose records are this run's best.
  run_options.threads = vta ? 0 : threads;
  TuneResult r = engine::run(op, run_options, db, task, parts);
  r.db = db.path();
  return r;
}

}  // namespace attune
