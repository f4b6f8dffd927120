// attune/attune.hpp — attune as a C++ library: tune a tensor kernel, read the best one back,
// and call it on your own buffers.
//
//   attune::Session session("cpu", "kernels.db");            // this CPU's target, a SQLite file
//   session.tune("gemm:M=512,N=512,K=512", {.trials = 64});  // search, measure, record
//   attune::Kernel gemm = session.load("gemm:M=512,N=512,K=512");
//   gemm({A, B, C});                                          // one pointer per tensor, in order
//
// A spec is what the `attune` command takes: spec text ("tensor A[8,8] f32; ..."), a template
// ("gemm:M=512,N=512,K=512") or a workload name. Every error is an attune::Error whose message
// says what went wrong and where. Only standard headers are needed: the tuner, the database and
// the compiler runs stay inside libattune.so (find_package(attune) -> attune::attune).
//
// Tests: tests/api/; a program built against the installed package: examples/consumer/.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attune/attune_error.hpp"  // attune::Error (standard headers only)

namespace attune {

// What one Session::tune() call may spend. `trials` counts every attempt recorded for the
// task, earlier runs included (as `attune tune --trials`): tuning again with the same number
// resumes and stops at once, a larger one measures only the difference.
struct Budget {
  int trials = 100;    // attempts wanted in total (0: no limit; then `seconds` must be set)
  double seconds = 0;  // stop after this long (0: no limit)
  int threads = 0;     // threads each candidate runs with (0: all cores)
  // Bytes that measuring one candidate may take (the op's tensors and attune's copies of
  // them, estimated before anything is allocated; 0: half of physical memory). An op over
  // the limit is refused with Error instead of meeting the OOM killer.
  std::uint64_t max_memory = 0;
};

struct TuneSummary {
  int trials = 0;          // attempts recorded for the task, earlier runs included
  int trials_run = 0;      // of which made by this call
  int valid = 0;           // attempts that ran and matched the reference evaluator
  double best_gflops = 0;  // the best verified kernel's speed; 0 while none is valid
};

// The best verified schedule of a task, as tuning measured it.
struct BestKernel {
  double gflops = 0;
  double seconds = 0;  // its time per call (median; of its re-measurements when confirmed)
  std::string trace;   // the schedule: attune's trace JSON (README "A trace")
};

// One argument of a kernel.
struct TensorInfo {
  std::string name;                 // as in the spec ("A", "B", "C")
  std::vector<std::int64_t> shape;  // dense, row-major
  std::string dtype;                // "f32", "f16" (IEEE half, as uint16_t), "i8", "u8", "i32"
  bool output = false;              // written by the kernel (every element: what it held before does not
                                    // matter); the others are only read
};

// A tuned kernel, loaded into this process. Owns the shared object it runs (closed by the
// destructor). Checked against attune's reference evaluator when loaded. Movable, not
// copyable; a moved-from Kernel throws when called. Calls may run concurrently; a kernel's
// threads follow OpenMP's controls (OMP_NUM_THREADS).
class Kernel {
 public:
  Kernel(Kernel&&) noexcept;
  Kernel& operator=(Kernel&&) noexcept;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  ~Kernel();

  // Runs the kernel on one buffer per tensor, in tensors() order, each holding its tensor's
  // elements densely in row-major order. The pointers are not checked.
  void operator()(void* const* buffers) const;
  // The same, after checking there is one non-null pointer per tensor (Error otherwise).
  void operator()(const std::vector<void*>& buffers) const;

  const std::vector<TensorInfo>& tensors() const;  // in argument order
  const BestKernel& measured() const;              // what tuning measured for it
  const std::string& library_path() const;         // the shared object it runs

 private:
  struct Impl;
  explicit Kernel(std::unique_ptr<Impl> impl);
  const Impl& impl() const;  // throws Error once moved from
  std::unique_ptr<Impl> impl_;
  friend class Session;
};

// A network (an ONNX file) with every task's kernel built and loaded: the best verified one
// the session's database records, else a correct default one. Movable, not copyable. run() is
// not safe from two threads at once.
class Model {
 public:
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model();

  // One float buffer per graph input, in inputs() order, each holding that input's elements
  // densely in row-major order; returns one buffer per graph output, in outputs() order.
  // Throws Error for a wrong count or size.
  std::vector<std::vector<float>> run(const std::vector<std::vector<float>>& inputs) const;

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  int tasks() const;        // distinct kernels the network runs
  int tuned_tasks() const;  // of which the database had a tuned record for

 private:
  struct Impl;
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  friend class Session;
};

// How a network is read and run.
struct ModelOptions {
  int threads = 0;  // threads every kernel runs with (0: all cores)
  // Dynamic input dimensions fixed: {"input", {1, 3, 224, 224}}.
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> shapes;
};

// Tuning records of one target in one database file.
class Session {
 public:
  // `target`: "cpu" (this CPU's own target: x86-avx512 or x86-avx2), another target name
  // ("x86-avx2", "vta", ...) or a target file's path. `database`: the SQLite file of tuning
  // records, created when missing. Throws Error for an unknown target or a file that is not
  // an attune database.
  explicit Session(const std::string& target = "cpu", const std::string& database = "attune.db");
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  ~Session();

  // Searches schedules of `spec`, measuring each candidate in an isolated process against the
  // reference evaluator and recording every attempt in the database.
  TuneSummary tune(const std::string& spec, const Budget& budget = {});
  // The best verified kernel recorded for `spec`, or nothing when it has none yet.
  std::optional<BestKernel> best(const std::string& spec) const;
  // Builds the best verified kernel of `spec` (CPU targets), loads it and checks it against the
  // reference evaluator. Throws Error when there is none, or when it does not build, load or
  // match the reference.
  Kernel load(const std::string& spec) const;

  // Tunes the tasks of an ONNX model for `budget.seconds` (required), the budget spread where
  // it shortens the network most (attune tune-model); trials already recorded count. Then, as
  // tune-model does, each task's kernel is picked among its fastest by its time in the network
  // (a few seconds beyond the budget); load_model runs the picks.
  TuneSummary tune_model(const std::string& onnx_path, const Budget& budget, const ModelOptions& options = {});
  // Imports an ONNX model and loads its kernels (CPU targets). Throws Error naming the node
  // for anything unsupported, or the file when it is not a readable model.
  Model load_model(const std::string& onnx_path, const ModelOptions& options = {}) const;

  const std::string& target() const;    // the name records are kept under ("x86-avx2", ...)
  const std::string& database() const;  // the database file

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace attune
