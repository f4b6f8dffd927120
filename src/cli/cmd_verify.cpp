// cmd_verify.cpp — `attune verify SPEC --random-traces N`: the fuzz check of the whole pipeline.
//
// N random legal traces are replayed, lowered to C, built in parallel and run once each in an
// isolated worker against the reference evaluator. Every candidate must be ok: a legal trace
// that does not compile or computes a different answer is a bug in attune, so each failure is
// printed with the trace that reproduces it and the source that was built.
#include <CLI/CLI.hpp>

#include <cstdlib>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <random>

#include "cli/cli_common.hpp"
#include "codegen/codegen.hpp"
#include "ir/error.hpp"
#include "runtime/interrupt.hpp"
#include "runtime/runtime.hpp"
#include "schedule/actions.hpp"
#include "schedule/schedule.hpp"

namespace attune::cli {

namespace {

struct VerifyArgs {
  std::string spec;
  int traces = 0;
  std::uint64_t seed = 1;
  int max_steps = 8;
  int threads = 0;
  double timeout_s = 120;
  std::string max_memory;  // "": half of physical memory
};

constexpr std::size_t kChunk = 32;  // candidates built and measured between progress updates

// One candidate: its trace and, once lowered, its artifact; `failure` when it never got built.
struct Candidate {
  std::string trace_json;
  std::optional<Artifact> artifact;
  std::string failure;  // "status: message" for replay/lowering errors
};

Candidate prepare(const Op& op, std::mt19937_64& rng, int max_steps) {
  Candidate c;
  try {
    const Schedule s{random_trace(op, rng, max_steps)};
    c.trace_json = schedule_to_string(s);
    static const Target host = load_target("cpu");  // as tune() builds here
    c.artifact = lower(s, op, host).artifact;
  } catch (const Error& e) {
    c.failure = std::string("lower_error: ") + e.what();
  } catch (const InternalError& e) {
    c.failure = std::string("internal_error: ") + e.what();
  }
  return c;
}

class Progress {
 public:
  explicit Progress(int total) : total_(total), tty_(stderr_is_terminal()) {}
  void show(int done, int failed) {
    const std::string line = "verify: " + std::to_string(done) + "/" + std::to_string(total_) + " checked, " +
                             std::to_string(failed) + " failed";
    if (tty_)
      std::cerr << "\r\033[K" << line << std::flush;
    else
      std::cerr << line << std::endl;
  }
  // Before writing a report line to stdout, so it does not land inside the redrawn line.
  void clear() {
    if (tty_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  int total_;
  bool tty_;
};

int run_verify(const VerifyArgs& a) {
  if (a.traces < 0) throw Error("--random-traces must be >= 0, got " + std::to_string(a.traces));
  if (a.max_steps < 0) throw Error("--max-steps must be >= 0, got " + std::to_string(a.max_steps));
  const Op op = op_from_cli(a.spec);
  check_max_memory(op, a.max_memory);
  // The compiler is probed before the scope: a SIGINT during its --version then ends the
  // process as usual, where inside the scope it would stop the probe and read as a bad compiler.
  const Builder builder;
  Runner runner;
  const InterruptScope interruptible;  // SIGINT/SIGTERM: stop after the chunk in flight
  MeasureOptions mopts = MeasureOptions::correctness_only(a.threads);
  mopts.timeout_s = a.timeout_s;
  // Nothing is timed here, so idle OpenMP threads should sleep rather than spin: random traces
  // open many tiny parallel regions, and spinning threads on a busy machine turn those into
  // timeouts. The workers inherit this (a user's own setting wins).
  setenv("OMP_WAIT_POLICY", "passive", 0);
  std::mt19937_64 rng(a.seed);
  Progress progress(a.traces);

  int passed = 0, failed = 0;
  auto report = [&](int index, const std::string& trace, const std::string& what) {
    progress.clear();
    std::cout << "FAIL #" << index << " trace=" << trace << " " << one_line(what, 2000) << std::endl;
    ++failed;
  };

  for (int start = 0; start < a.traces; start += static_cast<int>(kChunk)) {
    const int n = std::min<int>(kChunk, a.traces - start);
    std::vector<Candidate> cands;
    for (int i = 0; i < n; ++i) cands.push_back(prepare(op, rng, a.max_steps));

    std::vector<Artifact> arts;
    std::vector<int> slot;  // candidate index of each artifact
    for (int i = 0; i < n; ++i)
      if (cands[i].artifact) {
        arts.push_back(*cands[i].artifact);
        slot.push_back(i);
      } else {
        report(start + i, cands[i].trace_json, cands[i].failure);
      }
    const auto builds = builder.build_batch(arts);
    const auto ms = runner.measure_batch(op, builds, mopts);
    if (interrupted()) break;  // its compilers or workers were killed: no verdicts
    for (std::size_t k = 0; k < ms.size(); ++k) {
      if (ms[k].ok()) {
        ++passed;
        continue;
      }
      const std::string source = builder.cache_dir() + "/" + builder.cache_key(arts[k]) + ".c";
      report(start + slot[k], cands[slot[k]].trace_json,
             std::string(status_name(ms[k].status)) + ": " + ms[k].error + " (source " + source + ")");
    }
    progress.show(start + n, failed);
  }
  progress.clear();
  std::cout << passed << " passed, " << failed << " failed";
  if (const int sig = interrupted()) {
    std::cout << " (stopped by " << signal_name(sig) << ")" << std::endl;
    return interrupted_exit_code(sig);
  }
  std::cout << std::endl;
  return failed > 0 ? 1 : 0;
}

}  // namespace

void add_verify_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<VerifyArgs>();
  auto* sub = app.add_subcommand("verify", "Check random legal schedules of SPEC against the reference evaluator");
  sub->add_option("SPEC", args->spec, "op: template call, workload line/name, raw spec or spec file")->required();
  sub->add_option("--random-traces", args->traces, "number of random traces to check")->required();
  sub->add_option("--seed", args->seed, "seed of the trace generator")->capture_default_str();
  sub->add_option("--max-steps", args->max_steps, "most transformations per trace")->capture_default_str();
  sub->add_option("--timeout", args->timeout_s, "seconds one kernel may run before it counts as failed")
      ->capture_default_str();
  sub->add_option("--max-memory", args->max_memory,
                  "refuse an op whose measurement needs more memory (bytes, K/M/G suffix; default: half of RAM)");
  sub->add_option("--threads", args->threads, "threads each kernel runs with (0: OpenMP's default)")
      ->capture_default_str();
  sub->callback([&action, args] { action = [args] { return run_verify(*args); }; });
}

}  // namespace attune::cli
