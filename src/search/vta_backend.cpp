// The engine's VTA backend (engine.hpp): the VTA compiler (through lower()) as the Builder, the
// simulator in timing mode as the Runner. Both run in-process (the simulator never crashes, so
// no worker process), a round's candidates in parallel. A candidate's time is
// cycles / kVtaClockHz; one that would become the new best is first run functionally and
// checked bit-exact against the reference evaluator, so every reported best has been verified.
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "codegen/codegen.hpp"
#include "ir/error.hpp"
#include "search/engine.hpp"

namespace attune::engine {

namespace {

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

using Program = std::shared_ptr<const VtaCompiled>;

class VtaBuilder : public Builder {
 public:
  VtaBuilder(const Op& op, const Target& target, const VtaConfig& cfg, int jobs)
      : op_(op), target_(target), cfg_(cfg), jobs_(jobs) {}

  std::vector<Built> build(const std::vector<const Candidate*>& cands) override {
    std::vector<Built> out(cands.size());
    parallel_for(cands.size(), jobs_, [&](std::size_t i) {
      const auto t0 = std::chrono::steady_clock::now();
      Program prog;
      try {
        prog = lower(schedule_from_string(cands[i]->trace_text, "trace"), op_, target_, {.vta = &cfg_}).vta;
      } catch (const Error& e) {  // not a VTA schedule, or knobs this compiler does not know
        out[i].status = Status::invalid;
        out[i].error = e.what();
        return;
      }
      out[i].compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      out[i].status = prog->status;
      out[i].error = prog->error;
      out[i].hidden = prog->hidden;
      out[i].backend = std::move(prog);
    });
    return out;
  }

  Built rebuild(const Record& r) override {
    throw Error("record " + std::to_string(r.id) + ": VTA programs are not re-measured (the simulator is exact)");
  }

  std::string compiler_info() const override { return "attune-vta (" + cfg_.name + ")"; }

 private:
  const Op& op_;
  const Target target_;
  const VtaConfig cfg_;
  const int jobs_;
};

class SimulatorRunner : public Runner {
 public:
  SimulatorRunner(const Op& op, const VtaConfig& cfg, int jobs, std::uint64_t seed)
      : op_(op), cfg_(cfg), jobs_(jobs), seed_(seed) {}

  void run(const std::vector<const Built*>& batch, const RunContext& ctx) override {
    std::vector<VtaTimed> timed(batch.size());
    parallel_for(batch.size(), jobs_,
                 [&](std::size_t i) { timed[i] = vta_time(*std::any_cast<const Program&>(batch[i]->backend), cfg_); });
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (ctx.out_of_time()) return;
      Measurement m = timed[i].m;
      const std::optional<double> best = ctx.best_s();
      if (m.ok() && (!best || m.median_s < *best)) verify(*std::any_cast<const Program&>(batch[i]->backend), m);
      ctx.done(i, m, timed[i].hidden);
    }
  }

  bool noisy() const override { return false; }

 private:
  void verify(const VtaCompiled& prog, Measurement& m) {
    if (!reference_) reference_ = vta_reference_output(op_, seed_);
    const Measurement v = vta_verify(op_, prog, cfg_, seed_, &*reference_);
    if (v.ok()) {
      m.max_rel_error = v.max_rel_error;
      return;
    }
    m.status = v.status;
    m.error = v.error;
    m.times_s.clear();
    m.median_s = 0;
  }

  const Op& op_;
  const VtaConfig cfg_;
  const int jobs_;
  const std::uint64_t seed_;
  std::optional<Buffer> reference_;  // the evaluator's output, computed once
};

}  // namespace

std::unique_ptr<Builder> make_vta_builder(const Op& op, const Target& target, const VtaConfig& cfg, int jobs) {
  return std::make_unique<VtaBuilder>(op, target, cfg, jobs);
}

std::unique_ptr<Runner> make_simulator_runner(const Op& op, const VtaConfig& cfg, int jobs, std::uint64_t seed) {
  return std::make_unique<SimulatorRunner>(op, cfg, jobs, seed);
}

}  // namespace attune::engine
