// The engine's C backend (engine.hpp): a C compiler as the Builder, the isolated worker
// process as the Runner.
#include <algorithm>
#include <chrono>

#include "codegen/codegen.hpp"
#include "ir/error.hpp"
#include "runtime/runtime.hpp"
#include "search/engine.hpp"

namespace attune::engine {

namespace {

class CBuilder : public Builder {
 public:
  CBuilder(const Op& op, const Target& target) : op_(op), target_(target) {}

  std::vector<Built> build(const std::vector<const Candidate*>& cands) override {
    std::vector<Built> out(cands.size());
    std::vector<Artifact> arts;
    std::vector<std::size_t> lowered;
    std::vector<double> lower_s;
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      try {
        arts.push_back(lower(schedule_from_string(cands[i]->trace_text, "trace"), op_, target_).artifact);
        lowered.push_back(i);
        lower_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      } catch (const Error& e) {  // a transformation refused the trace
        out[i].status = Status::invalid;
        out[i].error = e.what();
        out[i].lower_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
    }
    const std::vector<BuildResult> builds = compiler_.build_batch(arts);
    for (std::size_t j = 0; j < builds.size(); ++j) {
      out[lowered[j]] = built(std::move(arts[j]), builds[j]);
      out[lowered[j]].lower_s = lower_s[j];
    }
    return out;
  }

  Built rebuild(const Record& r) override {
    Artifact a = rebuild_recorded(op_, target_, r);
    const BuildResult b = compiler_.build(a);
    if (!b.ok) throw Error("record " + std::to_string(r.id) + " no longer compiles: " + b.error);
    return built(std::move(a), b);
  }

  std::string compiler_info() const override { return compiler_.compiler_info(); }

 private:
  static Built built(Artifact a, const BuildResult& b) {
    Built out;
    out.compile_s = b.compile_s;
    if (b.ok) {
      out.hidden = object_features(b.so_path);  // ML²Tuner's hidden features, from the object code
    } else {
      out.status = Status::compile_error;
      out.error = b.error;
    }
    out.artifact = std::move(a);
    out.backend = b;
    return out;
  }

  const Op& op_;
  const Target target_;
  attune::Builder compiler_;
};

constexpr double kGiveUpFactor = 1.5;

class WorkerRunner : public Runner {
 public:
  WorkerRunner(const Op& op, int threads, std::uint64_t seed) : op_(op) {
    options_.threads = threads;
    options_.seed = seed;
    options_.warmup = 1;
    options_.max_seconds = 0.5;
  }

  void run(const std::vector<const Built*>& batch, const RunContext& ctx) override {
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (ctx.out_of_time()) return;
      MeasureOptions mo = options_;
      const std::optional<double> best = ctx.best_s();
      // A candidate 4x slower than the best on its first call gets no repeats. Below 20 ms the
      // first call's cold start (page faults, the OpenMP pool) could pass 4x, and repeats are cheap.
      mo.cutoff_s = best && !ctx.full_timing ? std::max(4 * *best, 0.02) : 0;
      // One that times 1.5x the best over its repeats so far stops there: it will not be the
      // best, and its rank among the slow ones needs no second digit.
      mo.give_up_s = best && !ctx.full_timing ? kGiveUpFactor * *best : 0;
      // Nor does one whose single call takes 20x the best get to run for the full limit.
      mo.timeout_s = best ? std::min(30.0, 5 + 20 * *best) : 30.0;
      const auto& b = std::any_cast<const BuildResult&>(batch[i]->backend);
      const Measurement m = workers_.measure_batch(op_, std::vector<BuildResult>{b}, mo).at(0);
      ctx.done(i, m, batch[i]->hidden);
    }
  }

  bool noisy() const override { return true; }

 private:
  const Op& op_;
  MeasureOptions options_;
  attune::Runner workers_;
};

}  // namespace

std::unique_ptr<Builder> make_c_builder(const Op& op, const Target& target) {
  return std::make_unique<CBuilder>(op, target);
}

std::unique_ptr<Runner> make_worker_runner(const Op& op, int threads, std::uint64_t seed) {
  return std::make_unique<WorkerRunner>(op, threads, seed);
}

}  // namespace attune::engine
