// search/tuner.hpp — the schedule space, search strategies and the shared tuning loop.
//
// A Space describes the candidate schedules of one op as knobs (each a small list of choices);
// a Config picks one choice per knob and expands to a Schedule. Strategies propose Configs from
// the history; tune() builds them in parallel, measures them one at a time in isolated
// workers, and commits every attempt to the database as it finishes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "codegen/codegen_cpu.hpp"
#include "db/db.hpp"
#include "hw/target.hpp"
#include "ir/measure.hpp"
#include "ir/op.hpp"
#include "schedule/schedule.hpp"
#include "schedule/transform.hpp"

namespace attune {

struct VtaConfig;

struct Knob {
  std::string name;
  std::vector<std::int64_t> choices;  // the values; a Config holds an index into them
  std::string help;
};

using Config = std::vector<int>;  // one choice index per knob

class Space {
 public:
  virtual ~Space() = default;
  virtual const std::vector<Knob>& knobs() const = 0;
  // The trace a config stands for. Throws Error when the config cannot be expressed (rare:
  // most bad configs expand fine and are refused by a transformation's applicable()).
  virtual Trace trace(const Config& c) const = 0;
  // The schedule a config stands for (schedule.hpp), what the engine lowers (codegen.hpp):
  // loop-nest spaces give their trace; the mapping space's tensorized arms a tensorize step;
  // the VTA space its knobs by name.
  virtual Schedule schedule(const Config& c) const { return Schedule{trace(c)}; }
  // Its text (schedule_to_string), which identifies the config in the database: the resume key
  // is its hash.
  std::string trace_json(const Config& c) const { return schedule_to_string(schedule(c)); }
  // The tag records of this space carry ("space" in their features), and the tags it reads
  // back: its own, and those of older versions or other spaces it contains.
  virtual std::string version() const = 0;
  virtual std::vector<std::string> readable_versions() const { return {version()}; }
  // The config a record of this task stands for in this space, if any (resume). Knobs are read
  // by name from the record's "knobs" object ({"name": value} over the knobs its config used):
  // each named knob takes the choice with that value, a knob the record does not name takes
  // choice 0 (unused by that config, or added to the space after the record was written), and
  // a name or value this space does not have means the record is not one of its configs.
  std::optional<Config> config_from_record(const nlohmann::json& features) const;
  // Whether a config is worth proposing at all (e.g. its register tile fits the registers).
  // Strategies skip configs that are not; they cost no trial.
  virtual bool admissible(const Config& c) const { return true; }
  // What a cost model sees before compiling (ML²Tuner's visible features): the knob values,
  // and for loop-nest spaces the nest's static features (features.hpp). Same length for every
  // config of a space.
  virtual std::vector<float> visible_features(const Config& c) const;
  // What a cross-task model sees (model/transfer_model.hpp): features that mean the same for
  // every op of the target, so that rows of many tasks share one model. Loop-nest spaces: the
  // nest's static features (no knob values: each op family has its own knobs) and how the
  // parallel loop splits over the threads; VTA: its visible features, which are already the
  // layer's shape and tile counts. Empty: the space has none (no cross-task learning).
  virtual std::vector<float> transfer_features(const Config& c) const { return {}; }
  // Which hidden features (features.hpp: "cpu" or "vta") its compiled candidates carry.
  virtual std::string hidden_kind() const { return "cpu"; }
  // Whether compiling a candidate is cheap next to measuring it (VTA: microseconds in-process)
  // or not (CPU: a C compiler run); model-based strategies size their work by it.
  virtual bool cheap_compile() const { return false; }
  // Whether visible_features() is cheap (no loop-nest replay): how far annealing may walk.
  virtual bool cheap_features() const { return false; }
  // Spaces made of arms (the mapping space: the loop-nest schedules, and each mapping onto an
  // intrinsic with its own knobs): the knob that picks the arm (-1: not armed), an arm's name
  // for people, and whether knob `k` matters to config `c`'s arm (unused knobs stay at 0).
  virtual int arm_knob() const { return -1; }
  virtual std::string arm_name(int arm) const { return "arm " + std::to_string(arm); }
  virtual bool knob_used(const Config& c, std::size_t k) const { return true; }
  // The knob that sets a kernel's overall structure (-1: none; CPU: the vector dimension).
  // Which structure runs best differs most between op families, so ml2, ranking the seeds with
  // models of other families, measures the best seed of each structure first (stratified_order.hpp).
  virtual int structure_knob() const { return -1; }
  nlohmann::json describe(const Config& c) const;  // {"knob": value, ...} over the used knobs
  std::optional<Config> config_from_knobs(const nlohmann::json& knobs) const;  // describe()'s inverse
  // A few configs the tuning loop measures first, before any strategy proposes (the space's
  // prior: the register-tile micro-kernels its codegen is known to run well). They are
  // measured and recorded like any other candidate; none is assumed to be good.
  virtual std::vector<Config> seed_configs() const { return {}; }
  // The admissible seed configs not in `tried`, each once, in seed_configs()' order.
  std::vector<Config> untried_seeds(const std::set<Config>& tried) const;
  // Uniform over admissible configs by rejection; an armed space draws the arm first.
  virtual Config random_config(std::mt19937_64& rng) const;
  std::size_t size() const;  // product of choice counts (saturating)
};

// The CPU schedule space for contraction-like ops (every family attune parses): register tile
// over a vectorized output dimension and an unrolled one, optional reduction split, loop order,
// packing of each input at one of several levels, and a parallel outer loop. `vectors` (the
// target's, cpu_vector_registers) sets the lanes of a vector tile and how many accumulators a
// register tile may hold. A multi-stage op that folds into a contraction with an epilogue
// (ir/fold_epilogue.hpp) gets that contraction's space; any other one is an error.
std::unique_ptr<Space> make_cpu_space(const Op& op, int threads, VectorRegisters vectors = {});

// The space of multi-stage ops (src/search/stage_space.cpp): per stage, the loop order of its
// compute nest, the vector length of its innermost loop and how many outer output loops run in
// parallel. Throws Error for a contraction. tune() gives it the multi-stage ops that do not
// fold into a contraction.
std::unique_ptr<Space> make_stage_space(const Op& op, int threads, VectorRegisters vectors = {});

// The VTA space (src/search/vta_space.cpp): AutoTVM's VTA template knobs tile_b, tile_h,
// tile_w, tile_ci, tile_co, oc_nthread, h_nthread (codegen_vta.hpp); a config's schedule is
// those knobs by name, trace() throws.
std::unique_ptr<Space> make_vta_space(const Op& op, const VtaConfig& cfg);

// The mapping space (AMOS's mappings x schedules; src/search/mapping_space.cpp): arm 0 is the
// CPU loop-nest space (when `with_nest`), every other arm one mapping of the op onto one of the
// target's CPU intrinsics with the tensorize schedule knobs t_rows, t_cols, t_parallel
// (tensorize.hpp). Mappings are ranked by how well their lanes stream (the column loops
// contiguous in B' and C'), iterations on the intrinsic, then padding; the best
// `max_mappings` become arms. A tensorized config's schedule is its tensorize step alone.
// Throws Error when no arm is left (no nest and no valid mapping).
struct MappingSpaceOptions {
  bool with_nest = true;
  int max_mappings = 8;
  int threads = 1;
  VectorRegisters vectors;  // the target's (cpu_vector_registers): the nest arm's and the register blocks' budget
};
std::unique_ptr<Space> make_mapping_space(const Op& op, const Target& target, const MappingSpaceOptions& o);
// How many mappings of `op` the target's CPU intrinsics admit (what the mapping space picks from).
int count_cpu_mappings(const Op& op, const Target& target);

// ---- search ----------------------------------------------------------------------------------

struct Trial {
  Config config;
  Status status = Status::ok;
  double time_s = 0;  // median; 0 unless ok
  // What compiling it revealed (the record's hidden features, without measured quantities);
  // null when it never got that far.
  nlohmann::json hidden;
};

// A proposal after compilation, offered to a two-level strategy's select().
struct CompiledCandidate {
  Config config;
  nlohmann::json hidden;  // hidden features read from the compiled result
};

// Where a strategy may keep what it learns across tasks (cost models per target).
struct StrategyContext {
  Database* db = nullptr;
  std::string target;          // the tuning target name (tuning_target_name)
  const Space* space = nullptr;  // the space it will propose from
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;
  // Proposes up to n configs not in `history` (the caller also filters repeats).
  virtual std::vector<Config> propose(const Space& space, const std::vector<Trial>& history, int n,
                                      std::mt19937_64& rng) = 0;

  // Two-level strategies (ml2) compile more than they measure: with a factor f > 1, tune()
  // asks propose() for f * n configs, compiles them all, records the ones that fail to compile,
  // reads the hidden features of the rest and measures only those select() returns (indices
  // into `compiled`, at most n).
  virtual int proposal_factor(const Space& space) const { return 1; }
  virtual std::vector<std::size_t> select(const Space& space, const std::vector<CompiledCandidate>& compiled, int n) {
    std::vector<std::size_t> all;
    for (std::size_t i = 0; i < compiled.size() && static_cast<int>(i) < n; ++i) all.push_back(i);
    return all;
  }
  // Called once before the first proposal and once after the last record: model-based
  // strategies warm-start from, and save their models to, the database here.
  virtual void begin(const StrategyContext&) {}
  virtual void end(const StrategyContext&) {}
  // Whether the space's seed configs (Space::seed_configs) are measured before the strategy's
  // first proposal; asked after begin(). Zero-shot ranks them with everything else instead.
  virtual bool measures_seeds_first() const { return true; }
  // The order the seeds are measured in (they arrive in the space's order); a strategy with a
  // model of other tasks puts the ones it expects to be fastest first.
  virtual void order_seeds(const Space&, std::vector<Config>& seeds) {}
  // What the strategy predicted for a config it proposed, as fields to add to its record's
  // features (ml2: {"ml2": {"p", "a", "v", "v_cut"}}, which `attune report` plots against the
  // measurement); null when it predicted nothing.
  virtual nlohmann::json predictions(const Config&) const { return nullptr; }
};

// Shares a measurement budget among the arms of an armed space (arm_knob() >= 0) by their
// results so far (UCB1 on each arm's best throughput relative to the best overall; each arm
// opened once, in the space's order, before any is revisited); within an arm, `inner` (a
// strategy name: "random" or "evolutionary") proposes over the arm's own knobs.
std::unique_ptr<Strategy> make_arm_bandit(const std::string& inner);

// "random", "evolutionary", "xgb", "ml2". Throws Error listing the known names for anything else.
// (Strategy "rl" proposes traces, not configs: the tuning engine takes its proposals from the
// RL agent, src/search/rl_proposer.cpp, so it is not in this table.)
std::unique_ptr<Strategy> make_strategy(const std::string& name);
std::vector<std::string> strategy_names();

// ---- the tuning loop -------------------------------------------------------------------------

struct TuneProgress {
  int trials = 0;  // attempts recorded for this task so far (including earlier runs)
  int budget = 0;  // target number of trials (0 with a time budget only)
  int valid = 0;   // ok attempts
  double best_time_s = 0;
  double best_gflops = 0;
  double elapsed_s = 0;
  double eta_s = -1;  // -1 when unknown
};

struct TuneOptions {
  std::string target = "cpu";
  int trials = 200;   // total attempts wanted for the task (earlier runs count)
  double time_s = 0;  // stop after this many seconds (0: no limit)
  std::string strategy = "evolutionary";
  std::string db_path = "attune.db";
  std::uint64_t seed = 0;
  int threads = 0;                                       // threads each candidate runs with (0: all cores)
  int batch = 0;                                         // candidates per round (0: 2 x compile jobs)
  std::function<void(const TuneProgress&)> on_progress;  // after every recorded attempt
  std::string policy;  // strategy "rl": a policy file (attune train-policy); empty: untrained
  // Search over mappings onto the target's intrinsics too (make_mapping_space): "auto" (on
  // for CPU targets with a runnable intrinsic and strategies random/evolutionary, off
  // otherwise), "on", "off" (loop-nest schedules only), "only" (mappings only).
  std::string mappings = "auto";
  int max_mappings = 8;
  // Confirmation (CPU): the `confirm_top` fastest traces are re-measured `confirm_runs` times
  // each, in fresh worker processes, at the end of the run; Database::best() then takes the
  // median of each one's measurements. A kernel's speed on this kind of machine can depend on
  // where its buffers land in memory, which changes from process to process, and the fastest
  // of hundreds of single measurements is often one that drew a lucky placement. With a time
  // limit, the search leaves room for this (a tenth of the limit, at most 15 s). 0: off.
  int confirm_top = 4;
  int confirm_runs = 2;
  // Where candidates are built and measured: "local" (this process and its isolated workers,
  // or the simulator) or "remote" (the database's job queue, for `attune worker`s of the
  // task's target anywhere; search/remote.hpp). Remote runs make no confirmations.
  std::string workers = "local";
  // Noted in the database's runs table when its command is not empty (the CLI fills it in), so
  // that a report can name the command, attune and machine that produced the records.
  RunInfo run;
};

// What one arm of the mapping space got (TuneResult::arms).
struct ArmResult {
  std::string name;
  int trials = 0;  // attempts of this run's history (resumed ones included)
  int valid = 0;
  double best_gflops = 0;
};

struct TuneResult {
  std::string db;  // the database as messages name it (a URL without its password)
  std::int64_t task_id = 0;
  int trials_before = 0;  // attempts found in the database at start (resumed)
  int trials_run = 0;     // attempts made by this run
  int trials_total = 0;   // attempts of the task at the end (other runs' at the same time included)
  int measured = 0;       // of which built and run (not refused as invalid or duplicates)
  int confirmations = 0;  // re-measurements of top traces by this run (TuneOptions::confirm_top)
  int valid = 0;          // ok attempts of the task in total
  double elapsed_s = 0;
  double candidates_per_minute = 0;  // attempts made by this run per minute of wall time
  std::optional<Record> best;        // best verified record of the task
  std::vector<std::int64_t> record_ids;  // this run's records, in the order they were made
  double best_gflops = 0;
  std::vector<ArmResult> arms;  // per arm when the mapping space was searched; empty otherwise
  // Where this run's wall time went, in seconds summed over the run: "propose" (the strategy,
  // its models included), "lower" (code generation), "compile" (the compilers, in parallel:
  // the wall time of each batch beyond its code generation), the measurement's steps as the
  // runner reports them (Measurement::phases_s: "spawn", "setup", "load", "check", "warmup",
  // "timing", "recheck"), "runner" (the rest of measuring: all of it on the VTA simulator),
  // "record" (database writes) and "confirm" (the re-measurements at the end).
  std::map<std::string, double> phases_s;
  // The signal (SIGINT, SIGTERM) that stopped the run inside an InterruptScope
  // (interrupt.hpp), 0 when none did: the batch in flight was abandoned and no confirmations
  // ran; every record above was committed.
  int interrupted = 0;
};

TuneResult tune(const Op& op, const TuneOptions& options);

// The target name tune() records a task under for a --target value ("cpu" -> "x86-avx2",
// "vta:extended" -> "vta:extended"): what `best`, `history` and libgen look tasks up by.
std::string tuning_target_name(const std::string& target_arg);

double gflops_of(const Op& op, double seconds);

// ---- before tuning ----
// The kernel a task runs with before it has been tuned (`attune run-model` for tasks without
// a record): the first seed config of its loop-nest space (make_stage_space for multi-stage
// ops, make_cpu_space for contractions and the ops that fold into one) that lowers, else the unscheduled loop nest.
Artifact default_artifact(const Op& op, const Target& target, int threads);

// ---- the thread count a record was measured at ----
// A CPU kernel's time depends on how many threads ran it, and one task's records may come from
// runs at several counts (tune-model at 1 thread, then at 2): the record feature below says
// which (written since 2026-12-04; older records have none). Whoever runs kernels at a given
// count picks among the records measured at it.
inline constexpr const char* kThreadsFeature = "threads";
int effective_threads(int threads);  // `threads`, or one per core when it is 0 (OpenMP's default)
void note_measured_threads(Record& r, int threads);
int measured_threads(const Record& r);  // 0 when the record does not say
// The records measured at `threads`; every record when `threads` is 0.
RecordFilter measured_at(int threads);
// The task's best record among those measured at `threads` (Database::best's rule); nullopt
// when none was.
std::optional<Record> best_measured_at(const Database& db, std::int64_t task_id, int threads);

// ---- the measured artifact, rebuilt ----
// The record feature holding content_hash of the C source tune() measured (written since
// 2026-12; older records have none and are rebuilt unchecked).
inline constexpr const char* kSourceHashFeature = "source_sha256";
// Stores what `a` is in `r`: its source hash (features) and its compiler flags.
void note_measured_artifact(Record& r, const Artifact& a);
enum class RebuildCheck {
  source_and_flags,  // the same C and the same flags: the demo, the benches, `attune best`
  source_only,       // the same C; the caller compiles with flags of its own (libgen's CMake)
};
// The kernel of CPU record `r`, lowered from its trace text (codegen.hpp's lower()).
// Throws Error when the trace no longer replays, or when the record says what it measured and
// the rebuilt artifact differs from it (so nobody is handed a kernel that was never timed).
Artifact rebuild_recorded(const Op& op, const Target& target, const Record& r,
                          RebuildCheck check = RebuildCheck::source_and_flags);

}  // namespace attune
