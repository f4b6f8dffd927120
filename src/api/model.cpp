// attune::Model and Session::tune_model / load_model (attune.hpp): networks through the C++ API,
// the graph and network stages behind the same boundary as kernels.
#include "api/boundary.hpp"
#include "api/session_impl.hpp"
#include "attune/attune.hpp"
#include "graph/import.hpp"
#include "network/model_runner.hpp"
#include "network/task_scheduler.hpp"

namespace attune {

struct Model::Impl {
  std::unique_ptr<network::ModelRunner> runner;
  std::vector<TensorInfo> inputs, outputs;
  int tuned = 0;
};

namespace {

graph::ShapeOverrides overrides(const ModelOptions& o) {
  graph::ShapeOverrides s;
  for (const auto& [name, dims] : o.shapes) s[name] = dims;
  return s;
}

std::vector<TensorInfo> describe(const graph::Graph& g, const std::vector<int>& values, bool output) {
  std::vector<TensorInfo> r;
  for (int v : values) r.push_back({g.values[v].name, g.values[v].shape, "f32", output});
  return r;
}

}  // namespace

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

std::vector<std::vector<float>> Model::run(const std::vector<std::vector<float>>& inputs) const {
  return at_api_boundary("run", [&] {
    if (!impl_) throw Error("this attune::Model was moved from; use the Model it was moved to");
    if (inputs.size() != impl_->inputs.size())
      throw Error("the model takes " + std::to_string(impl_->inputs.size()) + " inputs, got " + std::to_string(inputs.size()));
    std::vector<graph::HostTensor> in;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const auto& info = impl_->inputs[k];
      if (static_cast<std::int64_t>(inputs[k].size()) != graph::element_count(info.shape))
        throw Error("input '" + info.name + "' needs " + std::to_string(graph::element_count(info.shape)) +
                    " floats, got " + std::to_string(inputs[k].size()));
      in.push_back(graph::HostTensor::floats(info.shape, inputs[k]));
    }
    std::vector<std::vector<float>> out;
    for (auto& t : impl_->runner->run(in)) out.push_back(std::move(t.f));
    return out;
  });
}

const std::vector<TensorInfo>& Model::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& Model::outputs() const { return impl_->outputs; }
int Model::tasks() const { return static_cast<int>(impl_->runner->kernels().size()); }
int Model::tuned_tasks() const { return impl_->tuned; }

TuneSummary Session::tune_model(const std::string& path, const Budget& budget, const ModelOptions& options) {
  return at_api_boundary("tune_model", [&] {
    if (!(budget.seconds > 0)) throw Error("tune_model: the budget needs seconds");
    const graph::ModelPlan plan = graph::import_onnx(path, overrides(options));
    network::ModelTuneOptions o;
    o.target = impl_->target_arg;
    o.db_path = impl_->database;
    o.time_s = budget.seconds;
    o.threads = budget.threads;
    const auto r = network::tune_model(plan, o);
    TuneSummary s;
    s.trials_run = r.trials_run;
    for (const auto& t : r.tasks) s.trials += t.trials, s.valid += t.best_s > 0;
    return s;
  });
}

Model Session::load_model(const std::string& path, const ModelOptions& options) const {
  return at_api_boundary("load_model", [&] {
    auto impl = std::make_unique<Model::Impl>();
    graph::ModelPlan plan = graph::import_onnx(path, overrides(options));
    impl->inputs = describe(plan.graph, plan.graph.inputs, false);
    impl->outputs = describe(plan.graph, plan.graph.outputs, true);
    impl->runner = std::make_unique<network::ModelRunner>(std::move(plan),
                                                          network::ModelRunOptions{impl_->target_arg, impl_->database, options.threads, 0});
    for (const auto& k : impl->runner->kernels()) impl->tuned += k.tuned;
    return Model(std::move(impl));
  });
}

}  // namespace attune
