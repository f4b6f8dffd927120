// network_pick.cpp — picking kernels by their time inside the network (network_pick.hpp).
#include "network/network_pick.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <random>

#include <nlohmann/json.hpp>

#include "ir/error.hpp"
#include "network/model_runner.hpp"
#include "runtime/protocol.hpp"
#include "search/tuner.hpp"

namespace attune::network {

namespace {

// The models-table kind the picks for one thread count are stored under.
std::string pick_kind(int threads) { return "network-pick/" + std::to_string(threads); }

nlohmann::json to_json(const NetworkPick& p) {
  return {{"record", p.record}, {"over", p.over}, {"network_s", p.network_s}, {"over_network_s", p.over_network_s}};
}

// Random float inputs, one per graph input; nullopt (and `why`) when an input is not float.
std::optional<std::vector<graph::HostTensor>> random_inputs(const graph::ModelPlan& plan, std::uint64_t seed,
                                                            std::string& why) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<graph::HostTensor> inputs;
  for (int v : plan.graph.inputs) {
    const auto& value = plan.graph.values[v];
    if (value.type != graph::ElemType::f32) {
      why = "input '" + value.name.substr(0, 100) + "' is not float32";
      return std::nullopt;
    }
    std::vector<float> data(static_cast<std::size_t>(graph::element_count(value.shape)));
    for (float& x : data) x = normal(rng);
    inputs.push_back(graph::HostTensor::floats(value.shape, std::move(data)));
  }
  return inputs;
}

}  // namespace

std::map<std::string, NetworkPick> load_network_picks(const Database& db, const std::string& target, int threads) {
  std::map<std::string, NetworkPick> picks;
  const auto blob = db.latest_model(target, pick_kind(effective_threads(threads)));
  if (!blob) return picks;
  const auto j = nlohmann::json::parse(blob->blob, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("tasks") || !j["tasks"].is_object()) return picks;  // not ours to judge: no picks
  for (const auto& [spec, p] : j["tasks"].items()) {
    if (!p.is_object() || !p.value("record", nlohmann::json()).is_number_integer() ||
        !p.value("over", nlohmann::json()).is_number_integer())
      continue;
    picks[spec] = {p["record"].get<std::int64_t>(), p["over"].get<std::int64_t>(), p.value("network_s", 0.0),
                   p.value("over_network_s", 0.0)};
  }
  return picks;
}

NetworkPickResult pick_in_network(const graph::ModelPlan& plan, const NetworkPickOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  NetworkPickResult r;
  r.tasks.resize(plan.tasks.size());
  const auto inputs = random_inputs(plan, o.seed, r.skipped);
  if (!inputs) return r;

  ModelRunOptions ro;
  ro.target = o.target;
  ro.db_path = o.db_path;
  ro.threads = o.threads;
  ro.max_memory = o.max_memory;
  ro.alternatives = std::max(1, o.alternatives);
  ModelRunner runner(plan, ro);
  const int tasks = static_cast<int>(plan.tasks.size());
  std::vector<int> steps_of(tasks, 0);
  for (const auto& step : plan.steps) ++steps_of[step.task];

  // samples[t][k]: seconds per step of task t running alternative k, one per timed run.
  std::vector<std::vector<std::vector<double>>> samples(tasks);
  std::vector<std::vector<int>> cycle(tasks);  // per task, this block's order of its alternatives
  for (int t = 0; t < tasks; ++t) {
    const int n = static_cast<int>(runner.alternatives(t).size());
    samples[t].resize(n);
    cycle[t].resize(n);
    std::iota(cycle[t].begin(), cycle[t].end(), 0);
  }
  const int width = std::max(1, ro.alternatives);
  std::mt19937_64 rng(o.seed);
  std::vector<double> seconds;
  runner.run(*inputs);  // warm-up: first touches of the arena and the kernels' code
  for (int block = 0; block < o.rounds; ++block) {
    for (auto& c : cycle) std::shuffle(c.begin(), c.end(), rng);
    for (int j = 0; j < width; ++j) {
      for (int t = 0; t < tasks; ++t) runner.choose(t, cycle[t][j % cycle[t].size()]);
      seconds.assign(tasks, 0.0);
      runner.run(*inputs, &seconds);
      for (int t = 0; t < tasks; ++t)
        if (steps_of[t] > 0) samples[t][cycle[t][j % cycle[t].size()]].push_back(seconds[t] / steps_of[t]);
    }
  }

  Database db = Database::open(o.db_path, OpenMode::read_write_create);
  const std::string target = tuning_target_name(o.target);
  std::map<std::string, NetworkPick> picks = load_network_picks(db, target, o.threads);
  for (int t = 0; t < tasks; ++t) {
    const auto& alts = runner.alternatives(t);
    TaskPickResult& tr = r.tasks[t];
    std::vector<double> medians;
    for (const auto& s : samples[t]) medians.push_back(s.empty() ? 0 : runtime::median_of(s));
    if (!alts[0].tuned || medians.empty() || medians[0] <= 0) {
      if (!medians.empty()) r.before_s += plan.tasks[t].weight * medians[0], r.after_s += plan.tasks[t].weight * medians[0];
      continue;
    }
    tr.alternatives = static_cast<int>(alts.size());
    const int k = static_cast<int>(std::min_element(medians.begin(), medians.end()) - medians.begin());
    tr.best_s = medians[0];
    tr.changed = k != 0 && medians[k] < medians[0] * (1 - o.min_gain);
    tr.picked_s = tr.changed ? medians[k] : medians[0];
    r.before_s += plan.tasks[t].weight * tr.best_s;
    r.after_s += plan.tasks[t].weight * tr.picked_s;
    const std::string spec = canonical_spec(parse_spec(plan.tasks[t].spec));
    // alts[0] may itself be an earlier pick: the tuned best it was picked over stays `over`.
    const auto earlier = picks.find(spec);
    const std::int64_t over =
        earlier != picks.end() && earlier->second.record == alts[0].record ? earlier->second.over : alts[0].record;
    if (tr.changed) {
      picks[spec] = {alts[k].record, over, medians[k], medians[0]};
      ++r.changed;
    } else if (earlier != picks.end() && earlier->second.record == alts[0].record) {
      earlier->second.network_s = medians[0];  // the earlier pick holds: its time refreshed
    } else {
      picks.erase(spec);
    }
    if (o.log) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "network pick: task %d %s x%d: %d kernels, tuned best %.1f us in the network%s",
                    t, plan.tasks[t].label.substr(0, 60).c_str(), plan.tasks[t].weight, tr.alternatives,
                    tr.best_s * 1e6, tr.changed ? "" : ", kept");
      std::string line = buf;
      if (tr.changed) {
        std::snprintf(buf, sizeof buf, ", picked record %lld: %.1f us", static_cast<long long>(alts[k].record),
                      tr.picked_s * 1e6);
        line += buf;
      }
      o.log(line);
    }
  }
  nlohmann::json blob = {{"tasks", nlohmann::json::object()}};
  for (const auto& [spec, p] : picks) blob["tasks"][spec] = to_json(p);
  db.save_model(target, pick_kind(effective_threads(o.threads)), blob.dump());
  r.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace attune::network
