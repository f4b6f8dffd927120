// Runner: measures built candidates, each in a fresh attune-worker process.
//
// The parent only writes files, spawns (posix_spawn, never a bare fork) and waits, so nothing a
// candidate does can reach it. The worker's fate maps onto a Measurement status:
//   killed by a signal  -> runtime_error "killed by SIGSEGV" (+ the tail of its stderr)
//   past timeout_s      -> timeout (its whole process group gets SIGKILL)
//   a JSON result       -> that result (ok, wrong_result, runtime_error for dlopen/dlsym)
//   any other exit      -> runtime_error with the exit code and stderr
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "ir/error.hpp"
#include "ir/evaluator.hpp"
#include "ir/json_limits.hpp"
#include "ir/locations.hpp"
#include "runtime/files.hpp"
#include "runtime/interrupt.hpp"
#include "runtime/protocol.hpp"
#include "runtime/runtime.hpp"
#include "runtime/subprocess.hpp"

namespace attune {

namespace {

std::string tail(const std::string& text, std::size_t max = 2000) {
  std::string t = text.size() > max ? "..." + text.substr(text.size() - max) : text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t;
}

std::string with_stderr(std::string what, const std::string& err) {
  const std::string t = tail(err);
  return t.empty() ? what : what + "\n" + t;
}

std::string resolve_worker(const std::string& configured) {
  if (configured.empty()) return find_worker();  // $ATTUNE_WORKER, installed, build tree (locations.hpp)
  if (::access(configured.c_str(), X_OK) == 0) return configured;
  throw Error("attune-worker not found at '" + configured + "' (RunnerOptions::worker)");
}

std::string make_private_dir(const std::string& configured) {
  std::string base = configured;
  if (base.empty()) {
    const char* t = std::getenv("TMPDIR");
    base = t && *t ? t : "/tmp";
  }
  std::string templ = base + "/attune-run-XXXXXX";
  if (!::mkdtemp(templ.data())) throw Error("cannot create a temporary directory in '" + base + "'");
  return templ;
}

Measurement from_result(const runtime::WorkerResult& w) {
  Measurement m;
  m.max_rel_error = w.max_rel_error;
  if (w.status == "internal_error") throw InternalError("attune-worker refused its request: " + w.error);
  auto status = parse_status(w.status);
  if (!status) throw InternalError("attune-worker reported an unknown status '" + w.status + "'");
  m.status = *status;
  m.error = w.error;
  m.phases_s = w.phases_s;
  if (m.ok()) {
    m.times_s = w.times_s;
    m.median_s = runtime::median_of(m.times_s);
  }
  return m;
}

}  // namespace

Runner::Runner(RunnerOptions options)
    : worker_(resolve_worker(options.worker)), dir_(make_private_dir(options.temp_dir)) {}

Runner::~Runner() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string Runner::write_reference(const Buffer& reference, const std::string& name) {
  const std::string path = dir_ + "/" + name;
  runtime::write_file_atomic(path, std::string(static_cast<const char*>(reference.data()), reference.bytes()));
  return path;
}

std::string Runner::reference_file(const Op& op, std::uint64_t seed) {
  const std::string key = canonical_spec(op) + "\nseed " + std::to_string(seed);
  if (auto it = references_.find(key); it != references_.end()) return it->second;
  std::vector<Buffer> buffers = make_buffers(op, seed);
  evaluate(op, buffers);
  const int out = op.tensor_index(op.output.tensor);
  ATTUNE_CHECK(out >= 0, "the output tensor is declared");
  std::string path =
      write_reference(buffers[static_cast<std::size_t>(out)], "ref-" + std::to_string(counter_++) + ".bin");
  references_.emplace(key, path);
  return path;
}

Measurement Runner::run_worker(const Op& op, const std::string& so_path, const std::string& ref_path,
                               const MeasureOptions& o) {
  runtime::WorkerRequest req;
  req.spec = print_spec(op);
  req.so_path = std::filesystem::absolute(so_path).string();
  req.entry = o.entry;
  req.reference_path = ref_path;
  req.seed = o.seed;
  req.rtol = o.rtol;
  req.warmup = o.warmup;
  req.warmup_s = o.warmup_s;
  req.min_repeats = std::max(1, o.min_repeats);
  req.max_repeats = std::max(req.min_repeats, o.max_repeats);
  req.min_repeat_s = o.min_repeat_s;
  req.max_seconds = o.max_seconds;
  req.stable_tol = o.stable_tol;
  req.recheck = o.recheck;
  req.cutoff_s = o.cutoff_s;
  req.give_up_s = o.give_up_s;
  const std::string req_path = dir_ + "/request-" + std::to_string(counter_++) + ".json";
  runtime::write_file_atomic(req_path, runtime::to_json(req).dump(2));

  runtime::ProcessOptions popts;
  popts.timeout_s = o.timeout_s;
  if (o.threads > 0) popts.env.emplace_back("OMP_NUM_THREADS", std::to_string(o.threads));
  const auto started = std::chrono::steady_clock::now();
  const runtime::ProcessResult p = runtime::run_process({worker_, req_path}, popts);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::remove(req_path.c_str());
  // What the worker's own steps do not account for: starting the process (exec, the dynamic
  // loader, OpenMP's start-up), its exit, and reading its result.
  auto with_spawn = [&](Measurement m) {
    double inside = 0;
    for (const auto& [name, s] : m.phases_s) inside += s;
    m.phases_s["spawn"] = std::max(0.0, wall_s - inside);
    return m;
  };

  if (!p.started) throw Error("cannot start attune-worker '" + worker_ + "': " + p.spawn_error);
  Measurement m;
  if (p.timed_out) {
    m.status = Status::timeout;
    m.error = fmt::format("exceeded the wall-clock limit of {} s", o.timeout_s);
    return m;
  }
  if (p.signal != 0) {
    m.status = Status::runtime_error;
    m.error = with_stderr("killed by " + signal_name(p.signal), p.err);
    return m;
  }
  if (p.exit_code == 0) {
    // The worker ran generated code in its process: its output is bounded like any other.
    std::optional<nlohmann::json> j;
    try {
      j = parse_json_limited(p.out, "worker result");
    } catch (const Error&) {
    }
    if (j) return with_spawn(from_result(runtime::result_from_json(*j)));
  }
  // The kernel called exit() (or _exit) itself, or wrote garbage where the result goes.
  m.status = Status::runtime_error;
  m.error = with_stderr(
      "the worker exited with code " + std::to_string(p.exit_code) + " without a result (did the kernel call exit?)",
      p.err);
  return m;
}

Measurement Runner::measure(const Op& op, const std::string& so_path, const MeasureOptions& options) {
  std::lock_guard lock(mutex_);
  return run_worker(op, so_path, reference_file(op, options.seed), options);
}

std::vector<Measurement> Runner::measure_batch(const Op& op, const std::vector<std::string>& so_paths,
                                               const MeasureOptions& options) {
  std::vector<Measurement> out;
  out.reserve(so_paths.size());
  for (const auto& so : so_paths) out.push_back(measure(op, so, options));
  return out;
}

std::vector<Measurement> Runner::measure_batch(const Op& op, const std::vector<BuildResult>& builds,
                                               const MeasureOptions& options) {
  std::vector<Measurement> out;
  out.reserve(builds.size());
  for (const auto& b : builds) {
    Measurement m;
    if (b.ok) {
      m = measure(op, b.so_path, options);
    } else {
      m.status = Status::compile_error;
      m.error = b.error;
    }
    m.compile_s = b.compile_s;
    out.push_back(std::move(m));
  }
  return out;
}

Measurement Runner::measure_with_reference(const Op& op, const std::string& so_path, const Buffer& reference,
                                           const MeasureOptions& options) {
  const Tensor& t = op.tensor(op.output.tensor);
  if (reference.dtype() != t.dtype || reference.shape() != t.shape)
    throw Error("reference for '" + t.name + "' must be " + std::string(dtype_name(t.dtype)) +
                " with the output's shape");
  std::lock_guard lock(mutex_);
  const std::string path = write_reference(reference, "custom-" + std::to_string(counter_++) + ".bin");
  Measurement m = run_worker(op, so_path, path, options);
  std::remove(path.c_str());
  return m;
}

// ---- the process-wide runner ----------------------------------------------------------------

namespace {
Runner& default_runner() {
  static Runner runner;  // made on first use; throws Error (and retries next time) without a worker
  return runner;
}
}  // namespace

Measurement measure(const Op& op, const std::string& so_path, const MeasureOptions& options) {
  return default_runner().measure(op, so_path, options);
}
std::vector<Measurement> measure_batch(const Op& op, const std::vector<std::string>& so_paths,
                                       const MeasureOptions& options) {
  return default_runner().measure_batch(op, so_paths, options);
}
std::vector<Measurement> measure_batch(const Op& op, const std::vector<BuildResult>& builds,
                                       const MeasureOptions& options) {
  return default_runner().measure_batch(op, builds, options);
}
Measurement measure_with_reference(const Op& op, const std::string& so_path, const Buffer& reference,
                                   const MeasureOptions& options) {
  return default_runner().measure_with_reference(op, so_path, reference, options);
}

}  // namespace attune
