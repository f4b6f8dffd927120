// The shared tuning loop: propose -> expand -> build in parallel -> measure in isolation ->
// commit each attempt. Every strategy runs through it; the database makes it resumable.
//
// Per round the strategy proposes a batch of configs (the first rounds start with the space's
// seed configs, see Space::seed_configs). Each expands to a trace; a trace the
// database already holds for this task is skipped (resume never measures twice), a trace a
// transformation refuses is recorded `invalid` without building, the rest are lowered and
// compiled together (jobs = cores), then measured one at a time (so they do not disturb each
// other) by the runner, which checks every output against the reference evaluator. Each
// attempt is committed as soon as it finishes, so killing the process loses nothing recorded.
//
// VTA targets ("vta", "vta:extended", "vta:PATH") take a separate branch at a few points, marked
// "VTA": the space is AutoTVM's VTA knobs (vta_space.cpp), and each round's candidates are
// compiled in-process and timed on the simulator in timing mode (it never crashes, so no worker
// process); the time is cycles / kVtaClockHz, the cycles go to the hidden features. A candidate
// that would become the new best is first run functionally and checked bit-exact against the
// reference evaluator, so every reported best has been verified.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <set>
#include <thread>

#include "attune/codegen_vta.hpp"
#include "attune/error.hpp"
#include "attune/runtime.hpp"
#include "attune/target.hpp"
#include "attune/tuner.hpp"
#include "search/confirm.hpp"
#include "search/progress.hpp"
#include "search/rl_tune.hpp"

namespace attune {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The history a strategy learns from, rebuilt from the task's records (resume).
std::vector<Trial> load_history(const Database& db, std::int64_t task, const Space& space) {
  std::vector<Trial> h;
  for (const auto& r : db.records(task)) {
    const auto cfg = space.config_from_record(r.features);
    if (!cfg) continue;
    Trial t;
    t.config = *cfg;
    t.status = r.status;
    t.time_s = r.ok() ? r.median_s : 0;
    if (r.hidden_features.is_object()) t.hidden = r.hidden_features;
    h.push_back(std::move(t));
  }
  return h;
}

struct Candidate {
  Config config;
  std::string trace_text, trace_hash;
  std::string refused;  // non-empty: invalid, with the reason
  Artifact artifact;
};

// Runs body(i) for i in [0, n) on up to `jobs` threads (this one included).
template <class Body>
void parallel_for(std::size_t n, int jobs, const Body& body) {
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < n;) body(i);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::min<int>(jobs, static_cast<int>(n)); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

// VTA: compiles a round's candidates (compile_vta is re-entrant); results in input order, with
// the compile time of each.
std::vector<std::pair<VtaCompiled, double>> compile_vta_round(const Op& op, const Space& space,
                                                              const std::vector<Candidate>& cands,
                                                              const VtaConfig& cfg, int jobs) {
  std::vector<std::pair<VtaCompiled, double>> out(cands.size());
  parallel_for(cands.size(), jobs, [&](std::size_t i) {
    const auto t0 = Clock::now();
    out[i].first = compile_vta(op, VtaKnobs::from_json(space.describe(cands[i].config)), cfg);
    out[i].second = seconds_since(t0);
  });
  return out;
}

// VTA: times compiled programs on the simulator (re-entrant); input order.
std::vector<VtaTimed> time_vta_round(const std::vector<const VtaCompiled*>& progs, const VtaConfig& cfg, int jobs) {
  std::vector<VtaTimed> out(progs.size());
  parallel_for(progs.size(), jobs, [&](std::size_t i) { out[i] = vta_time(*progs[i], cfg); });
  return out;
}

// The CPU space tune() searches for `o.mappings` (TuneOptions): the loop-nest space alone, or
// the mapping space when there is something to map and the strategy can share a budget.
std::unique_ptr<Space> choose_cpu_space(const Op& op, const Target& target, const TuneOptions& o, int threads) {
  const std::string& m = o.mappings;
  if (m != "auto" && m != "on" && m != "off" && m != "only")
    throw Error("--mappings '" + m + "': expected auto, on, off or only");
  if (m == "off") return make_cpu_space(op, threads, cpu_vector_bits(target));
  const bool shares = o.strategy == "random" || o.strategy == "evolutionary";
  if (m == "auto" && !shares) return make_cpu_space(op, threads, cpu_vector_bits(target));
  if (!shares)
    throw Error("--mappings " + m + ": strategy '" + o.strategy +
                "' cannot search a space of mappings (it ranks the configs of one space): use --strategy "
                "evolutionary or random, or --mappings off");
  MappingSpaceOptions mo;
  mo.with_nest = m != "only";
  mo.max_mappings = o.max_mappings;
  mo.threads = threads;
  mo.vector_bits = cpu_vector_bits(target);
  auto s = make_mapping_space(op, target, mo);
  if (mo.with_nest && s->knobs().front().choices.size() == 1) return make_cpu_space(op, threads, cpu_vector_bits(target));  // nothing mapped
  return s;
}

// Per arm of an armed space: attempts, valid ones and the best speed in `history`.
std::vector<ArmResult> arm_results(const Op& op, const Space& space, const std::vector<Trial>& history) {
  std::vector<ArmResult> out;
  const int ak = space.arm_knob();
  if (ak < 0) return out;
  for (std::size_t a = 0; a < space.knobs()[static_cast<std::size_t>(ak)].choices.size(); ++a)
    out.push_back({space.arm_name(static_cast<int>(a))});
  for (const auto& t : history) {
    ArmResult& r = out.at(static_cast<std::size_t>(t.config.at(static_cast<std::size_t>(ak))));
    ++r.trials;
    if (t.status != Status::ok) continue;
    ++r.valid;
    r.best_gflops = std::max(r.best_gflops, gflops_of(op, t.time_s));
  }
  return out;
}

}  // namespace

std::string tuning_target_name(const std::string& target_arg) {
  // VTA: "vta:NAME" / "vta:PATH" name a config, not a target file.
  if (!is_vta_target_arg(target_arg)) return load_target(target_arg).name;
  const VtaConfig cfg = vta_config_for(target_arg);
  return cfg.name == "default" ? "vta" : "vta:" + cfg.name;
}

TuneResult tune(const Op& op, const TuneOptions& o) {
  if (o.strategy == "rl") return tune_rl(op, o);  // traces from the RL agent (rl_tune.cpp)
  const bool vta = is_vta_target_arg(o.target);
  const Target target = load_target(vta ? std::string("vta") : o.target);
  const VtaConfig vta_cfg = vta ? vta_config_for(o.target) : VtaConfig{};
  const std::string target_name = tuning_target_name(o.target);
  if (target.kind != TargetKind::cpu && !vta)
    throw Error("tuning on target '" + target.name + "' is not available yet: only cpu targets are measured");
  if (vta && (o.mappings == "on" || o.mappings == "only"))
    throw Error("--mappings " + o.mappings + ": on VTA the op is mapped onto the GEMM core by the VTA knobs themselves");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = o.threads > 0 ? o.threads : cores;
  const int budget = o.trials > 0 ? o.trials : INT_MAX;

  const std::unique_ptr<Space> space = vta ? make_vta_space(op, vta_cfg) : choose_cpu_space(op, target, o, threads);
  const std::string space_version = space->version();
  const std::unique_ptr<Strategy> strategy =
      space->arm_knob() >= 0 ? make_arm_bandit(o.strategy) : make_strategy(o.strategy);
  Database db = Database::open(o.db_path, OpenMode::read_write_create);
  const TaskInfo task = db.get_or_create_task(op.name, canonical_spec(op), target_name);
  std::mt19937_64 rng(o.seed);
  const StrategyContext strategy_ctx{&db, target_name};
  strategy->begin(strategy_ctx);
  // Two-level strategies (ml2) compile `factor` times what they measure (Strategy::select).
  const int factor = std::max(1, strategy->proposal_factor(*space));

  // The C toolchain and the worker process (VTA needs neither: it compiles and runs in-process).
  std::optional<Builder> builder;
  std::optional<Runner> runner;
  if (!vta) {
    builder.emplace();
    runner.emplace();
  }
  MeasureOptions mo;
  mo.threads = threads;
  mo.seed = o.seed + 1;
  mo.warmup = 1;
  mo.max_seconds = 0.5;
  CpuCodegenOptions co;
  co.vector_bits = cpu_vector_bits(target);
  if (!target.compiler_flags.empty()) co.flags = target.compiler_flags;

  std::vector<Trial> history = load_history(db, task.id, *space);
  std::set<std::string> known = db.known_trace_hashes(task.id);
  TaskCounts counts = db.counts(task.id);

  TuneResult res;
  res.task_id = task.id;
  res.trials_before = static_cast<int>(counts.trials);
  const auto t0 = Clock::now();
  std::optional<double> best_s;
  if (auto b = db.best(task.id)) best_s = b->median_s;
  const int batch = o.batch > 0 ? o.batch : 2 * cores;
  int empty_rounds = 0;

  const bool confirm = !vta && o.confirm_top > 0 && o.confirm_runs > 0;
  // The search stops early enough to leave the confirmations their time.
  const double search_s = o.time_s > 0 && confirm ? o.time_s - std::min(0.1 * o.time_s, 15.0) : o.time_s;
  auto out_of_budget = [&] {
    return counts.trials >= budget || (search_s > 0 && seconds_since(t0) >= search_s);
  };
  auto report = [&] {
    if (o.on_progress)
      o.on_progress(tune_progress(op, o, counts, best_s, seconds_since(t0), res.trials_run, budget));
  };
  std::optional<Buffer> vta_reference;  // VTA: the evaluator's output, computed once
  auto record = [&](const Candidate& c, const Measurement& m, const nlohmann::json& hidden = nullptr,
                    bool measured = true) {
    Record r;
    r.task_id = task.id;
    r.trace = c.trace_text;
    r.trace_hash = c.trace_hash;
    r.set_measurement(m);
    r.compile_s = m.compile_s;
    r.features = {{"space", space_version}, {"config", c.config}, {"knobs", space->describe(c.config)},
                  {"visible", space->visible_features(c.config)}};
    if (!measured) r.features["measured"] = false;
    r.hidden_features = hidden;
    r.compiler = vta ? "attune-vta (" + vta_cfg.name + ")" : builder->compiler_info();
    r.flags = c.artifact.flags;
    r.strategy = strategy->name();
    r.seed = o.seed;
    r.trial = counts.next_trial;
    db.insert(r);
    ++counts.trials;
    ++counts.next_trial;
    if (m.ok()) {
      ++counts.valid;
      if (!best_s || m.median_s < *best_s) best_s = m.median_s;
    }
    ++res.trials_run;
    known.insert(c.trace_hash);
    history.push_back({c.config, m.status, m.ok() ? m.median_s : 0, hidden});
    report();
  };
  // Failures found while compiling a two-level strategy's proposals are attempts like any other
  // (recorded, counted against the budget); those beyond the budget are dropped unrecorded.
  // They carry "measured": false in their features: never run, found by compiling.
  auto record_if_budget = [&](const Candidate& c, const Measurement& m, const nlohmann::json& hidden = nullptr) {
    if (counts.trials >= budget) {
      known.erase(c.trace_hash);
      return;
    }
    record(c, m, hidden, false);
  };

  // The space's seeds go first (those not already in the history of a resumed task).
  std::vector<Config> seeds;
  for (auto& c : space->seed_configs()) {
    const bool tried = std::any_of(history.begin(), history.end(), [&](const Trial& t) { return t.config == c; });
    if (!tried && space->admissible(c) && std::find(seeds.begin(), seeds.end(), c) == seeds.end()) seeds.push_back(c);
  }
  std::reverse(seeds.begin(), seeds.end());  // taken from the back

  report();
  while (!out_of_budget()) {
    const int want = std::min<long long>(batch, static_cast<long long>(budget) - counts.trials);
    std::vector<Config> configs;
    while (!seeds.empty() && static_cast<int>(configs.size()) < want) {
      configs.push_back(seeds.back());
      seeds.pop_back();
    }
    if (static_cast<int>(configs.size()) < want * factor) {
      auto more = strategy->propose(*space, history, want * factor - static_cast<int>(configs.size()), rng);
      for (auto& c : more)
        if (std::find(configs.begin(), configs.end(), c) == configs.end()) configs.push_back(std::move(c));
    }
    std::vector<Candidate> cands;
    for (auto& cfg : configs) {
      Candidate c;
      c.config = cfg;
      try {
        c.trace_text = space->trace_json(cfg);
      } catch (const Error& e) {
        c.trace_text = nlohmann::json::array({{{"unexpressible", space->describe(cfg)}}}).dump();
        c.refused = e.what();
      }
      c.trace_hash = content_hash(c.trace_text);
      if (known.count(c.trace_hash)) {
        // Measured in an earlier run: let the strategy see it, never measure it again.
        history.push_back({cfg, Status::invalid, 0, nullptr});
        continue;
      }
      known.insert(c.trace_hash);
      if (vta) {
        cands.push_back(std::move(c));
        continue;
      }
      if (c.refused.empty()) {
        try {
          c.artifact = space->lower(op, cfg, co);
        } catch (const Error& e) {
          c.refused = e.what();
        }
      }
      cands.push_back(std::move(c));
    }
    if (cands.empty()) {
      if (++empty_rounds >= 20) break;  // the space is exhausted
      continue;
    }
    empty_rounds = 0;

    if (vta) {
      // VTA: compile the round; a two-level strategy picks which to time; a candidate that
      // beats the best is verified before it counts.
      const auto compiled = compile_vta_round(op, *space, cands, vta_cfg, cores);
      std::vector<std::size_t> to_time;
      if (factor > 1) {
        std::vector<CompiledCandidate> offered;
        std::vector<std::size_t> offered_index;
        for (std::size_t i = 0; i < cands.size(); ++i) {
          if (compiled[i].first.ok()) {
            offered.push_back({cands[i].config, compiled[i].first.hidden});
            offered_index.push_back(i);
            continue;
          }
          Measurement m;
          m.status = compiled[i].first.status;
          m.error = compiled[i].first.error;
          m.compile_s = compiled[i].second;
          record_if_budget(cands[i], m, compiled[i].first.hidden);
        }
        const int room = std::min<long long>(want, static_cast<long long>(budget) - counts.trials);
        for (std::size_t k : strategy->select(*space, offered, std::max(0, room))) to_time.push_back(offered_index.at(k));
        std::set<std::size_t> chosen(to_time.begin(), to_time.end());
        for (std::size_t i : offered_index)
          if (!chosen.count(i)) known.erase(cands[i].trace_hash);  // compiled, not measured: may come back
      } else {
        for (std::size_t i = 0; i < cands.size(); ++i) to_time.push_back(i);
      }
      std::vector<const VtaCompiled*> progs;
      for (std::size_t i : to_time) progs.push_back(&compiled[i].first);
      const auto timed = time_vta_round(progs, vta_cfg, cores);
      for (std::size_t j = 0; j < to_time.size(); ++j) {
        if (o.time_s > 0 && seconds_since(t0) >= o.time_s) break;
        const std::size_t i = to_time[j];
        const VtaCompiled& prog = compiled[i].first;
        Measurement m = timed[j].m;
        m.compile_s = compiled[i].second;
        if (m.ok() && (!best_s || m.median_s < *best_s)) {
          if (!vta_reference) vta_reference = vta_reference_output(op, o.seed + 1);
          const Measurement v = vta_verify(op, prog, vta_cfg, o.seed + 1, &*vta_reference);
          if (v.ok()) {
            m.max_rel_error = v.max_rel_error;
          } else {
            m.status = v.status;
            m.error = v.error;
            m.times_s.clear();
            m.median_s = 0;
          }
        }
        if (prog.ok()) ++res.measured;
        record(cands[i], m, timed[j].hidden);
      }
      continue;
    }

    std::vector<Artifact> arts;
    std::vector<std::size_t> built_index;
    for (std::size_t i = 0; i < cands.size(); ++i) {
      if (!cands[i].refused.empty()) {
        Measurement m;
        m.status = Status::invalid;
        m.error = cands[i].refused;
        if (factor > 1) record_if_budget(cands[i], m);  // found before measuring anything
        else record(cands[i], m);                       // an attempt, as AutoTVM counts it
        continue;
      }
      built_index.push_back(i);
      arts.push_back(cands[i].artifact);
    }
    const auto builds = builder->build_batch(arts);
    // Hidden features of every built candidate, read from its object code.
    std::vector<nlohmann::json> hidden(builds.size());
    for (std::size_t j = 0; j < builds.size(); ++j)
      if (builds[j].ok) hidden[j] = object_features(builds[j].so_path);
    std::vector<std::size_t> to_measure;
    if (factor > 1) {
      std::vector<CompiledCandidate> offered;
      std::vector<std::size_t> offered_index;
      for (std::size_t j = 0; j < builds.size(); ++j) {
        if (builds[j].ok) {
          offered.push_back({cands[built_index[j]].config, hidden[j]});
          offered_index.push_back(j);
          continue;
        }
        Measurement m;
        m.status = Status::compile_error;
        m.error = builds[j].error;
        m.compile_s = builds[j].compile_s;
        record_if_budget(cands[built_index[j]], m);
      }
      const int room = std::min<long long>(want, static_cast<long long>(budget) - counts.trials);
      for (std::size_t k : strategy->select(*space, offered, std::max(0, room))) to_measure.push_back(offered_index.at(k));
      std::set<std::size_t> chosen(to_measure.begin(), to_measure.end());
      for (std::size_t j : offered_index)
        if (!chosen.count(j)) known.erase(cands[built_index[j]].trace_hash);  // built, not measured
    } else {
      for (std::size_t j = 0; j < builds.size(); ++j) to_measure.push_back(j);
    }
    for (std::size_t j : to_measure) {
      if (search_s > 0 && seconds_since(t0) >= search_s) break;
      // A candidate 4x slower than the best on its first call gets no repeats. Below 20 ms the
      // first call's cold start (page faults, the OpenMP pool) could pass 4x, and repeats are cheap.
      mo.cutoff_s = best_s ? std::max(4 * *best_s, 0.02) : 0;
      // Nor does one whose single call takes 20x the best get to run for the full limit.
      mo.timeout_s = best_s ? std::min(30.0, 5 + 20 * *best_s) : 30.0;
      const auto m = runner->measure_batch(op, std::vector<BuildResult>{builds[j]}, mo).at(0);
      ++res.measured;
      record(cands[built_index[j]], m, hidden[j]);
    }
  }

  if (confirm) {
    ConfirmContext cc{op, *space, db, task.id, *builder, *runner, mo, co, o, t0};
    res.confirmations = confirm_top_traces(cc, counts.next_trial);
  }

  strategy->end(strategy_ctx);
  res.elapsed_s = seconds_since(t0);
  res.valid = static_cast<int>(counts.valid);
  res.candidates_per_minute = res.elapsed_s > 0 ? res.trials_run * 60.0 / res.elapsed_s : 0;
  res.best = db.best(task.id);
  if (res.best) res.best_gflops = gflops_of(op, res.best->median_s);
  res.arms = arm_results(op, *space, history);
  return res;
}

}  // namespace attune
