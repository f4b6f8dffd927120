// The shared tuning loop: propose -> expand -> build in parallel -> measure in isolation ->
// commit each attempt. Every strategy runs through it; the database makes it resumable.
//
// Per round the strategy proposes a batch of configs. Each expands to a trace; a trace the
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

#include "attune/codegen_cpu.hpp"
#include "attune/codegen_vta.hpp"
#include "attune/error.hpp"
#include "attune/runtime.hpp"
#include "attune/target.hpp"
#include "attune/tuner.hpp"
#include "search/rl_tune.hpp"

namespace attune {

namespace {

constexpr const char* kSpaceVersion = "cpu-v1";
constexpr const char* kVtaSpaceVersion = "vta-v1";

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The history a strategy learns from, rebuilt from the task's records (resume).
std::vector<Trial> load_history(const Database& db, std::int64_t task, const Space& space,
                                const std::string& version) {
  std::vector<Trial> h;
  for (const auto& r : db.records(task)) {
    if (!r.features.is_object() || r.features.value("space", "") != version) continue;
    const auto& cfg = r.features.at("config");
    if (!cfg.is_array() || cfg.size() != space.knobs().size()) continue;
    Trial t;
    t.config = cfg.get<Config>();
    t.status = r.status;
    t.time_s = r.ok() ? r.median_s : 0;
    h.push_back(std::move(t));
  }
  return h;
}

struct Candidate {
  Config config;
  Trace trace;
  std::string trace_text, trace_hash;
  std::string refused;  // non-empty: invalid, with the reason
  Artifact artifact;
};

// VTA: one candidate compiled and timed (compile_vta + vta_time).
struct VtaRun {
  VtaCompiled compiled;
  VtaTimed timed;
  double compile_s = 0;
};

// VTA: compiles and times a round's candidates on `jobs` threads (both are re-entrant);
// results in input order.
std::vector<VtaRun> run_vta_round(const Op& op, const Space& space, const std::vector<Candidate>& cands,
                                  const VtaConfig& cfg, int jobs) {
  std::vector<VtaRun> out(cands.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < cands.size();) {
      const auto t0 = Clock::now();
      out[i].compiled = compile_vta(op, VtaKnobs::from_json(space.describe(cands[i].config)), cfg);
      out[i].compile_s = seconds_since(t0);
      out[i].timed = vta_time(out[i].compiled, cfg);
    }
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < std::min<int>(jobs, static_cast<int>(cands.size())); ++i) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
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
  const std::string space_version = vta ? kVtaSpaceVersion : kSpaceVersion;
  if (target.kind != TargetKind::cpu && !vta)
    throw Error("tuning on target '" + target.name + "' is not available yet: only cpu targets are measured");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = o.threads > 0 ? o.threads : cores;
  const int budget = o.trials > 0 ? o.trials : INT_MAX;

  Database db = Database::open(o.db_path, OpenMode::read_write_create);
  const TaskInfo task = db.get_or_create_task(op.name, canonical_spec(op), target_name);
  const auto space = vta ? make_vta_space(op, vta_cfg) : make_cpu_space(op, threads);
  const auto strategy = make_strategy(o.strategy);
  std::mt19937_64 rng(o.seed);

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
  mo.timeout_s = 30;
  CpuCodegenOptions co;
  co.vector_bits = target.vector_bits >= 512 ? 512 : 256;
  if (!target.compiler_flags.empty()) co.flags = target.compiler_flags;

  std::vector<Trial> history = load_history(db, task.id, *space, space_version);
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

  auto out_of_budget = [&] {
    return counts.trials >= budget || (o.time_s > 0 && seconds_since(t0) >= o.time_s);
  };
  auto report = [&] {
    if (!o.on_progress) return;
    TuneProgress p;
    p.trials = static_cast<int>(counts.trials);
    p.budget = o.trials > 0 ? o.trials : 0;
    p.valid = static_cast<int>(counts.valid);
    p.best_time_s = best_s.value_or(0);
    p.best_gflops = best_s ? gflops_of(op, *best_s) : 0;
    p.elapsed_s = seconds_since(t0);
    if (o.time_s > 0) p.eta_s = std::max(0.0, o.time_s - p.elapsed_s);
    if (o.trials > 0 && res.trials_run > 0) {
      const double per = p.elapsed_s / res.trials_run;
      const double eta = per * std::max(0, budget - p.trials);
      p.eta_s = p.eta_s < 0 ? eta : std::min(p.eta_s, eta);
    }
    o.on_progress(p);
  };
  std::optional<Buffer> vta_reference;  // VTA: the evaluator's output, computed once
  auto record = [&](const Candidate& c, const Measurement& m, const nlohmann::json& hidden = nullptr) {
    Record r;
    r.task_id = task.id;
    r.trace = c.trace_text;
    r.trace_hash = c.trace_hash;
    r.set_measurement(m);
    r.compile_s = m.compile_s;
    r.features = {{"space", space_version}, {"config", c.config}, {"knobs", space->describe(c.config)}};
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
    history.push_back({c.config, m.status, m.ok() ? m.median_s : 0});
    report();
  };

  report();
  while (!out_of_budget()) {
    const int want = std::min<long long>(batch, static_cast<long long>(budget) - counts.trials);
    auto configs = strategy->propose(*space, history, want, rng);
    std::vector<Candidate> cands;
    for (auto& cfg : configs) {
      Candidate c;
      c.config = cfg;
      if (!vta) c.trace = space->trace(cfg);
      c.trace_text = vta ? space->trace_json(cfg) : trace_to_string(c.trace);
      c.trace_hash = content_hash(c.trace_text);
      if (known.count(c.trace_hash)) {
        // Measured in an earlier run: let the strategy see it, never measure it again.
        history.push_back({cfg, Status::invalid, 0});
        continue;
      }
      known.insert(c.trace_hash);
      if (vta) {
        cands.push_back(std::move(c));
        continue;
      }
      try {
        CpuCodegenOptions oc = co;
        oc.trace_json = c.trace_text;
        c.artifact = lower_cpu(replay(op, c.trace), oc);
      } catch (const Error& e) {
        c.refused = e.what();
      }
      cands.push_back(std::move(c));
    }
    if (cands.empty()) {
      if (++empty_rounds >= 20) break;  // the space is exhausted
      continue;
    }
    empty_rounds = 0;

    if (vta) {
      // VTA: compile and time the round; a candidate that beats the best is verified first.
      const auto runs = run_vta_round(op, *space, cands, vta_cfg, cores);
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (o.time_s > 0 && seconds_since(t0) >= o.time_s) break;
        Measurement m = runs[i].timed.m;
        m.compile_s = runs[i].compile_s;
        if (m.ok() && (!best_s || m.median_s < *best_s)) {
          if (!vta_reference) vta_reference = vta_reference_output(op, o.seed + 1);
          const Measurement v = vta_verify(op, runs[i].compiled, vta_cfg, o.seed + 1, &*vta_reference);
          if (v.ok()) {
            m.max_rel_error = v.max_rel_error;
          } else {
            m.status = v.status;
            m.error = v.error;
            m.times_s.clear();
            m.median_s = 0;
          }
        }
        if (runs[i].compiled.ok()) ++res.measured;
        record(cands[i], m, runs[i].timed.hidden);
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
        record(cands[i], m);
        continue;
      }
      built_index.push_back(i);
      arts.push_back(cands[i].artifact);
    }
    const auto builds = builder->build_batch(arts);
    for (std::size_t j = 0; j < builds.size(); ++j) {
      if (o.time_s > 0 && seconds_since(t0) >= o.time_s) break;
      const auto m = runner->measure_batch(op, std::vector<BuildResult>{builds[j]}, mo).at(0);
      ++res.measured;
      record(cands[built_index[j]], m);
    }
  }

  res.elapsed_s = seconds_since(t0);
  res.valid = static_cast<int>(counts.valid);
  res.candidates_per_minute = res.elapsed_s > 0 ? res.trials_run * 60.0 / res.elapsed_s : 0;
  res.best = db.best(task.id);
  if (res.best) res.best_gflops = gflops_of(op, res.best->median_s);
  return res;
}

}  // namespace attune
