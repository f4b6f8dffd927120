// model_runner.cpp — kernels, buffers and the step loop of a network (model_runner.hpp).
#include "network/model_runner.hpp"

#include <omp.h>

#include <chrono>
#include <cstring>
#include <map>
#include <thread>

#include "db/db.hpp"
#include "graph/layout.hpp"
#include "hw/target.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "network/memory_plan.hpp"
#include "runtime/loaded_kernel.hpp"
#include "runtime/runtime.hpp"
#include "search/tuner.hpp"

namespace attune::network {

using graph::HostTensor;

struct ModelRunner::Impl {
  graph::ModelPlan plan;
  int threads = 1;
  std::vector<TaskKernel> info;
  std::vector<LoadedKernel> kernels;
  std::map<int, std::vector<float>> owned;  // root value -> its floats (weights, graph inputs)
  std::map<int, std::int64_t> in_arena;     // root value -> arena offset (intermediates)
  std::vector<float> arena;
  ArenaPlan layout;

  int root(int v) const { return plan.storage[v]; }
  float* data(int v) {
    const int r = root(v);
    if (auto it = in_arena.find(r); it != in_arena.end()) return arena.data() + it->second / 4;
    return owned.at(r).data();
  }
  void build_kernels(const ModelRunOptions& o);
  void place_buffers();
};

void ModelRunner::Impl::build_kernels(const ModelRunOptions& o) {
  const Target target = load_target(o.target);
  if (target.kind != TargetKind::cpu)
    throw Error("run-model: target " + target.name + " is not a CPU target; networks run on this machine's CPU");
  if (const auto why = host_cannot_run(target); !why.empty()) throw Error(why);
  std::optional<Database> db;
  if (!o.db_path.empty()) db = Database::open(o.db_path, OpenMode::read_only);
  const std::string target_name = tuning_target_name(o.target);
  std::vector<Artifact> artifacts;
  for (const auto& task : plan.tasks) {
    const Op op = parse_spec(task.spec);
    TaskKernel k;
    std::optional<Record> best;
    if (db)
      if (auto t = db->find_task(canonical_spec(op), target_name)) best = db->best(t->id);
    if (best) {
      artifacts.push_back(rebuild_recorded(op, target, *best));
      k = {true, best->id, best->median_s};
    } else {
      artifacts.push_back(default_artifact(op, target, threads));
    }
    info.push_back(k);
  }
  const auto built = Builder().build_batch(artifacts);
  for (std::size_t t = 0; t < built.size(); ++t) {
    if (!built[t].ok)
      throw Error("run-model: task " + std::to_string(t) + " (" + plan.tasks[t].label + ") does not compile: " + built[t].error);
    kernels.emplace_back(built[t].so_path, artifacts[t].entry);
  }
}

void ModelRunner::Impl::place_buffers() {
  const auto& g = plan.graph;
  const int end = static_cast<int>(plan.steps.size());
  std::map<int, Lifetime> life;  // root -> lifetime, for values steps write
  for (int s = 0; s < end; ++s) {
    const int out = root(plan.steps[s].args.back());
    life[out] = {graph::element_count(g.values[out].shape) * 4, s, s};
  }
  for (int s = 0; s < end; ++s)
    for (int v : plan.steps[s].args)
      if (auto it = life.find(root(v)); it != life.end()) it->second.last = std::max(it->second.last, s);
  for (int v : g.outputs)
    if (auto it = life.find(root(v)); it != life.end()) it->second.last = end;
  std::vector<int> roots;
  std::vector<Lifetime> lifetimes;
  for (const auto& [r, l] : life) roots.push_back(r), lifetimes.push_back(l);
  layout = plan_arena(lifetimes);
  arena.assign(layout.total / 4 + 16, 0.0f);
  for (std::size_t k = 0; k < roots.size(); ++k) in_arena[roots[k]] = layout.offsets[k];
  // Weights and constants: converted once, here.
  auto own_constant = [&](int v) {
    const int r = root(v);
    if (!in_arena.count(r) && !owned.count(r) && g.values[r].constant)
      owned[r] = graph::physical_floats(*g.values[r].constant, g.values[r].layout);  // pre-packed once
  };
  for (const auto& step : plan.steps)
    for (int v : step.args) own_constant(v);
  for (int v : g.outputs) own_constant(v);
  for (int v : g.inputs) owned[root(v)].assign(graph::element_count(g.values[v].shape), 0.0f);
}

ModelRunner::ModelRunner(graph::ModelPlan plan, const ModelRunOptions& o) : impl_(std::make_unique<Impl>()) {
  impl_->plan = std::move(plan);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  impl_->threads = o.threads > 0 ? o.threads : cores;
  impl_->build_kernels(o);
  impl_->place_buffers();
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
    m.owned[m.root(g.inputs[k])] = inputs[k].f;
  }
  omp_set_num_threads(m.threads);
  std::vector<void*> ptrs;
  if (task_seconds) task_seconds->resize(m.plan.tasks.size(), 0.0);
  for (const auto& step : m.plan.steps) {
    ptrs.clear();
    for (int v : step.args) ptrs.push_back(m.data(v));
    const auto t0 = std::chrono::steady_clock::now();
    m.kernels[step.task](ptrs.data());
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
std::int64_t ModelRunner::arena_bytes() const { return impl_->layout.total; }
std::int64_t ModelRunner::unshared_bytes() const { return impl_->layout.unshared; }

}  // namespace attune::network
