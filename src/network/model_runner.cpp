// model_runner.cpp — kernels, buffers and the step loop of a network (model_runner.hpp).
#include "network/model_runner.hpp"

#include <omp.h>

#include <chrono>

#include "ir/error.hpp"
#include "network/buffer_plan.hpp"
#include "network/task_kernels.hpp"
#include "runtime/loaded_kernel.hpp"
#include "runtime/memory_estimate.hpp"
#include "runtime/runtime.hpp"
#include "search/tuner.hpp"

namespace attune::network {

using graph::HostTensor;

struct ModelRunner::Impl {
  graph::ModelPlan plan;
  int threads = 1;
  std::vector<TaskKernel> info;                      // per task: the alternative it runs
  std::vector<std::vector<TaskKernel>> alternatives;  // per task
  std::vector<std::vector<LoadedKernel>> kernels;     // per task, per alternative
  std::vector<int> chosen;                            // per task
  BufferPlan buffers;
  AlignedFloats arena;                 // kBufferAlign-aligned like the buffers kernels were timed on
  std::vector<AlignedFloats> inputs;  // the current run's, per graph input
  // Per step: the weights its kernel packs, packed by it at load (prepack()), and pointers to them.
  std::vector<std::vector<AlignedFloats>> packed;
  std::vector<std::vector<void*>> packed_pointers;

  const LoadedKernel& kernel(const graph::Step& step) const { return kernels[step.task][chosen[step.task]]; }

  std::vector<void*> args(const graph::Step& step) {
    std::vector<void*> r;
    for (int v : step.args) r.push_back(data(v));
    return r;
  }

  // Packs the weights of step `s` for the kernel it runs now (none when that kernel packs none).
  // Reads nothing but the step's weights, which stay as loaded.
  void prepack(std::size_t s) {
    const auto& step = plan.steps[s];
    const Prepack& p = kernel(step).prepack();
    packed[s].clear();
    packed_pointers[s].clear();
    for (std::size_t bytes : p.bytes) {
      packed[s].emplace_back(bytes / sizeof(float));
      packed_pointers[s].push_back(packed[s].back().data());
    }
    if (p) p.pack(args(step).data(), packed_pointers[s].data());
  }

  float* data(int v) {
    const auto p = buffers.at(plan, v);
    switch (p.where) {
      case BufferPlan::Where::arena: return arena.data() + p.offset;
      case BufferPlan::Where::weights: return buffers.weights.data() + p.offset;
      case BufferPlan::Where::input: return inputs[p.offset].data();
    }
    return nullptr;
  }
};

namespace {

// The weights, the arena (as the plan will lay it out), the graph's inputs and outputs and the
// `packed` bytes of weights the kernels pack at load, against the limit, before any of them is
// allocated (runtime/memory_estimate.hpp's rule for ops).
void check_model_memory(const graph::ModelPlan& plan, std::uint64_t limit, std::uint64_t packed) {
  if (limit == 0) limit = default_memory_limit();
  const auto& g = plan.graph;
  std::uint64_t bytes = packed;
  std::vector<bool> seen(g.values.size());
  auto count = [&](int v) {
    const int r = plan.storage[v];
    if (!seen[r]) bytes += static_cast<std::uint64_t>(graph::element_count(g.values[r].shape)) * 4, seen[r] = true;
  };
  for (const auto& step : plan.steps)
    for (int v : step.args) count(v);
  for (int v : g.outputs) count(v);
  if (bytes > limit)
    throw Error("the model's weights and buffers take up to " + format_bytes(bytes) + ", more than the limit of " +
                format_bytes(limit) + " (--max-memory raises it)");
}

}  // namespace

ModelRunner::ModelRunner(graph::ModelPlan plan, const ModelRunOptions& o) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.plan = std::move(plan);
  m.threads = effective_threads(o.threads);
  check_model_memory(m.plan, o.max_memory, 0);  // before anything is built or allocated
  TaskArtifacts a = task_artifacts(m.plan, o.target, o.db_path, m.threads, o.alternatives);
  // Every task's kernels in one batch (the builder compiles them in parallel).
  std::vector<Artifact> all;
  std::vector<std::size_t> task_of;
  for (std::size_t t = 0; t < a.tasks.size(); ++t) {
    m.info.push_back(a.tasks[t][0].info);
    m.alternatives.emplace_back();
    for (auto& c : a.tasks[t]) {
      m.alternatives[t].push_back(c.info);
      all.push_back(std::move(c.artifact));
      task_of.push_back(t);
    }
  }
  const auto built = Builder().build_batch(all);
  m.kernels.resize(a.tasks.size());
  for (std::size_t b = 0; b < built.size(); ++b) {
    const std::size_t t = task_of[b];
    if (!built[b].ok)
      throw Error("run-model: task " + std::to_string(t) + " (" + m.plan.tasks[t].label + ") does not compile: " + built[b].error);
    m.kernels[t].emplace_back(built[b].so_path, all[b].entry);
  }
  m.chosen.assign(m.kernels.size(), 0);
  std::uint64_t packed = 0;
  for (const auto& step : m.plan.steps)
    for (std::size_t b : m.kernel(step).prepack().bytes) packed += b;
  check_model_memory(m.plan, o.max_memory, packed);
  m.buffers = plan_buffers(m.plan);
  m.arena.assign(m.buffers.arena.total / 4 + 16, 0.0f);
  m.inputs.resize(m.plan.graph.inputs.size());
  m.packed.resize(m.plan.steps.size());
  m.packed_pointers.resize(m.plan.steps.size());
  omp_set_num_threads(m.threads);
  for (std::size_t s = 0; s < m.plan.steps.size(); ++s) m.prepack(s);
}

ModelRunner::~ModelRunner() = default;
ModelRunner::ModelRunner(ModelRunner&&) noexcept = default;

std::vector<HostTensor> ModelRunner::run(const std::vector<HostTensor>& inputs, std::vector<double>* task_seconds) {
  Impl& m = *impl_;
  const auto& g = m.plan.graph;
  if (inputs.size() != g.inputs.size())
    throw Error("run-model: the model has " + std::to_string(g.inputs.size()) + " inputs, got " + std::to_string(inputs.size()));
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const auto& v = g.values[g.inputs[k]];
    if (inputs[k].shape != v.shape)
      throw Error("run-model: input '" + v.name.substr(0, 100) + "' must have shape " + graph::shape_str(v.shape) +
                  ", got " + graph::shape_str(inputs[k].shape));
    if (inputs[k].type != graph::ElemType::f32) throw Error("run-model: input '" + v.name.substr(0, 100) + "' must be float32");
    m.inputs[k].assign(inputs[k].f.begin(), inputs[k].f.end());
  }
  omp_set_num_threads(m.threads);
  std::vector<void*> ptrs;
  if (task_seconds) task_seconds->resize(m.plan.tasks.size(), 0.0);
  for (std::size_t s = 0; s < m.plan.steps.size(); ++s) {
    const auto& step = m.plan.steps[s];
    ptrs.clear();
    for (int v : step.args) ptrs.push_back(m.data(v));
    const LoadedKernel& kernel = m.kernel(step);
    const auto t0 = std::chrono::steady_clock::now();
    if (const Prepack& p = kernel.prepack())
      p.prepacked(ptrs.data(), m.packed_pointers[s].data());
    else
      kernel(ptrs.data());
    if (task_seconds)
      (*task_seconds)[step.task] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  std::vector<HostTensor> out;
  for (int v : g.outputs) {
    const float* p = m.data(v);
    const auto n = graph::element_count(g.values[v].shape);
    out.push_back(HostTensor::floats(g.values[v].shape, std::vector<float>(p, p + n)));
  }
  return out;
}

const graph::ModelPlan& ModelRunner::plan() const { return impl_->plan; }
const std::vector<TaskKernel>& ModelRunner::kernels() const { return impl_->info; }
const std::vector<TaskKernel>& ModelRunner::alternatives(int task) const { return impl_->alternatives.at(task); }

void ModelRunner::choose(int task, int alternative) {
  Impl& m = *impl_;
  const auto& options = m.alternatives.at(task);
  if (alternative < 0 || alternative >= static_cast<int>(options.size()))
    throw InternalError("task " + std::to_string(task) + " has no alternative " + std::to_string(alternative));
  if (m.chosen[task] == alternative) return;
  m.chosen[task] = alternative;
  m.info[task] = options[alternative];
  omp_set_num_threads(m.threads);
  for (std::size_t s = 0; s < m.plan.steps.size(); ++s)
    if (m.plan.steps[s].task == task) m.prepack(s);
}
std::int64_t ModelRunner::arena_bytes() const { return impl_->buffers.arena.total; }
std::int64_t ModelRunner::unshared_bytes() const { return impl_->buffers.arena.unshared; }
std::int64_t ModelRunner::packed_bytes() const {
  std::int64_t n = 0;
  for (const auto& step : impl_->packed)
    for (const auto& b : step) n += static_cast<std::int64_t>(b.size() * sizeof(float));
  return n;
}

}  // namespace attune::network
