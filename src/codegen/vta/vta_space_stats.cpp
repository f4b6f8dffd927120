// vta_space_stats: how much of AutoTVM's VTA knob space is invalid, and why.
//
// Each config is compiled (compile errors: the rules of vta_plan.cpp, plus encodings) and the
// survivors run once in timing mode (runtime errors: accumulator hazards). Configs are
// independent, so they are spread over the machine's cores.
//
// Against the published sweeps (72-91% invalid on ResNet-18 layers with the stock template):
// on the default config every config of each bench/workloads/vta.txt layer gives 37-49% invalid
// for the 56/28/14-pixel layers and 59-71% for the 7x7 ones (27% for the GEMM). The causes are
// the published ones - a virtual-thread split that does not divide its loop (27-54%, the
// largest), tiles too big for the 32 KB input / 256 KB weight / 128 KB accumulator buffers
// (each virtual thread owns a copy), single-entry tiles that hit the accumulator hazard -
// but fewer configs fail here, because:
//   - our micro-op kernels hold only the tile's (s, b, co, h, w) points, the channel and
//     filter-row loops running in the GEMM instruction's own two loops, so the 8192-entry
//     micro-op buffer never overflows on these layers; TVM unrolls more loops into its
//     kernels, so there micro-op overflow is a failure kind of its own;
//   - the hazard is only a single-entry tile here; in TVM's micro-op order (as we read the
//     template: output channels and rows innermost) an entry can repeat more often;
//   - the simulator has no failure modes of the board itself (hangs, instruction-queue
//     limits, timeouts), which the published sweeps count as invalid too.
#include <algorithm>
#include <atomic>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "codegen/codegen_vta.hpp"

namespace attune {

namespace {

struct Outcome {
  std::string kind;  // "" when valid
  std::uint64_t cycles = 0;
};

Outcome evaluate_config(const Op& op, const VtaKnobs& k, const VtaConfig& cfg) {
  const VtaCompiled c = compile_vta(op, k, cfg);
  if (!c.ok()) return {"compile_error:" + c.error_kind};
  const VtaTimed t = vta_time(c, cfg);
  if (!t.m.ok()) return {"runtime_error:" + std::string(vta_error_kind_name(t.error_kind))};
  return {"", t.cycles};
}

}  // namespace

SpaceStats vta_space_stats(const Op& op, const VtaConfig& cfg, int max_configs) {
  const auto knobs = vta_knob_choices(vta_problem_of(op), cfg);
  SpaceStats st;
  st.op = op.name;
  st.space_size = 1;
  for (const auto& [name, choices] : knobs) st.space_size *= choices.size();

  // Flat indices of the configs to try: all, or a reproducible sample.
  std::vector<std::size_t> picks;
  const std::size_t want = max_configs > 0 ? std::size_t(max_configs) : st.space_size;
  if (st.space_size <= want) {
    for (std::size_t i = 0; i < st.space_size; ++i) picks.push_back(i);
  } else {
    std::mt19937_64 rng(12345);
    std::set<std::size_t> chosen;
    std::uniform_int_distribution<std::size_t> any(0, st.space_size - 1);
    while (chosen.size() < want) chosen.insert(any(rng));
    picks.assign(chosen.begin(), chosen.end());
  }
  auto knobs_at = [&](std::size_t flat) {
    std::map<std::string, std::int64_t> v;
    for (auto it = knobs.rbegin(); it != knobs.rend(); ++it) {
      v[it->first] = it->second[flat % it->second.size()];
      flat /= it->second.size();
    }
    return VtaKnobs::of(AcceleratorKnobs{"vta", v});
  };

  std::vector<Outcome> out(picks.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < picks.size();) out[i] = evaluate_config(op, knobs_at(picks[i]), cfg);
  };
  const unsigned n = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), unsigned(picks.size())));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < n; ++i) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();

  st.evaluated = picks.size();
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!out[i].kind.empty()) {
      ++st.invalid_by_kind[out[i].kind];
      continue;
    }
    ++st.valid;
    if (st.best_cycles == 0 || out[i].cycles < st.best_cycles) {
      st.best_cycles = out[i].cycles;
      st.best_knobs = knobs_at(picks[i]).to_json();
    }
  }
  return st;
}

nlohmann::json SpaceStats::to_json() const {
  nlohmann::json kinds = nlohmann::json::object();
  for (const auto& [k, n] : invalid_by_kind) kinds[k] = n;
  return {{"op", op},
          {"space_size", space_size},
          {"evaluated", evaluated},
          {"valid", valid},
          {"invalid_share", invalid_share()},
          {"invalid_by_kind", kinds},
          {"best_cycles", best_cycles},
          {"best_knobs", best_knobs}};
}

std::string SpaceStats::str() const {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << op << ": " << evaluated << " of " << space_size << " configs, " << invalid_share() * 100 << "% invalid";
  if (best_cycles) os << ", best " << best_cycles << " cycles " << best_knobs.dump();
  os << "\n";
  for (const auto& [k, n] : invalid_by_kind)
    os << "  " << k << ": " << n << " (" << 100.0 * double(n) / double(std::max<std::size_t>(evaluated, 1)) << "%)\n";
  return os.str();
}

}  // namespace attune
