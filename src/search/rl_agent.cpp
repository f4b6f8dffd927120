// The deep-Q agent's networks, built on libtorch. The only translation unit that includes
// torch (its headers cost ~40 s to compile); everything else sees rl.hpp's torch-free Agent.
//
// Network: Q(s, a) = MLP(state ++ action), kFeatures -> hidden -> hidden -> 1 with ReLUs. The
// policy network picks moves and learns; the target network, a copy refreshed by
// sync_target(), gives the bootstrapped targets so they do not chase their own updates.
// One intra-op thread: the nets are small, and tuning measures kernels on the other cores.
#include <torch/torch.h>

#include <algorithm>
#include <mutex>

#include "ir/error.hpp"
#include "search/rl.hpp"

namespace attune::rl {

namespace {

struct QNetImpl : torch::nn::Module {
  explicit QNetImpl(int hidden)
      : l1(register_module("l1", torch::nn::Linear(kFeatures, hidden))),
        l2(register_module("l2", torch::nn::Linear(hidden, hidden))),
        l3(register_module("l3", torch::nn::Linear(hidden, 1))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(l1->forward(x));
    x = torch::relu(l2->forward(x));
    return l3->forward(x).squeeze(-1);
  }
  torch::nn::Linear l1, l2, l3;
};
TORCH_MODULE(QNet);

torch::Tensor rows_tensor(const std::vector<float>& rows) {
  if (rows.size() % kFeatures != 0)
    throw InternalError("rl: feature rows of " + std::to_string(rows.size()) + " numbers, not a multiple of " +
                        std::to_string(kFeatures));
  const auto n = static_cast<std::int64_t>(rows.size() / kFeatures);
  return torch::from_blob(const_cast<float*>(rows.data()), {n, kFeatures}, torch::kFloat32).clone();
}

std::vector<float> to_vector(const torch::Tensor& t) {
  const auto c = t.contiguous();
  return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

void copy_params(QNet& to, const QNet& from) {
  torch::NoGradGuard guard;
  auto dst = to->parameters();
  auto src = from->parameters();
  for (std::size_t i = 0; i < dst.size(); ++i) dst[i].copy_(src[i]);
}

}  // namespace

struct Agent::Impl {
  explicit Impl(AgentOptions o) : opts(o), policy(nullptr), target(nullptr) {
    static std::once_flag threads;
    std::call_once(threads, [] { torch::set_num_threads(1); });
    torch::manual_seed(o.seed);
    policy = QNet(o.hidden);
    target = QNet(o.hidden);
    copy_params(target, policy);
    optimizer = std::make_unique<torch::optim::Adam>(policy->parameters(), torch::optim::AdamOptions(o.lr));
  }
  AgentOptions opts;
  QNet policy, target;
  std::unique_ptr<torch::optim::Adam> optimizer;
};

bool agent_available() { return true; }

Agent::Agent(AgentOptions o) : impl_(std::make_unique<Impl>(o)) {}
Agent::~Agent() = default;
Agent::Agent(Agent&&) noexcept = default;
Agent& Agent::operator=(Agent&&) noexcept = default;

const AgentOptions& Agent::options() const { return impl_->opts; }

std::vector<float> Agent::q_values(const std::vector<float>& rows, bool target) const {
  if (rows.empty()) return {};
  torch::NoGradGuard guard;
  auto& net = target ? impl_->target : impl_->policy;
  return to_vector(net->forward(rows_tensor(rows)));
}

std::size_t Agent::act(const std::vector<Move>& moves, double epsilon, std::mt19937_64& rng) const {
  if (moves.empty()) throw InternalError("rl::Agent::act: no moves");
  if (std::uniform_real_distribution<double>(0, 1)(rng) < epsilon)
    return std::uniform_int_distribution<std::size_t>(0, moves.size() - 1)(rng);
  std::vector<float> rows;
  rows.reserve(moves.size() * kFeatures);
  for (const auto& m : moves) rows.insert(rows.end(), m.input.begin(), m.input.end());
  const auto q = q_values(rows);
  return static_cast<std::size_t>(std::max_element(q.begin(), q.end()) - q.begin());
}

std::vector<float> Agent::targets(const std::vector<const Transition*>& batch) const {
  // One forward pass of the target network over every next-state row of the batch.
  std::vector<float> rows;
  for (const auto* t : batch)
    if (!t->done) rows.insert(rows.end(), t->next_inputs.begin(), t->next_inputs.end());
  const auto q = q_values(rows, true);
  std::vector<float> y;
  std::size_t at = 0;
  for (const auto* t : batch) {
    const std::size_t n = t->done ? 0 : t->next_inputs.size() / kFeatures;
    y.push_back(q_target(t->reward, t->done, static_cast<float>(impl_->opts.gamma),
                         std::vector<float>(q.begin() + static_cast<std::ptrdiff_t>(at),
                                            q.begin() + static_cast<std::ptrdiff_t>(at + n))));
    at += n;
  }
  return y;
}

double Agent::learn(const std::vector<const Transition*>& batch) {
  if (batch.empty()) return 0;
  const auto y = targets(batch);
  std::vector<float> rows;
  for (const auto* t : batch) rows.insert(rows.end(), t->input.begin(), t->input.end());
  auto& net = impl_->policy;
  const auto q = net->forward(rows_tensor(rows));
  const auto yt =
      torch::from_blob(const_cast<float*>(y.data()), {static_cast<std::int64_t>(y.size())}, torch::kFloat32).clone();
  auto loss = torch::smooth_l1_loss(q, yt);
  impl_->optimizer->zero_grad();
  loss.backward();
  torch::nn::utils::clip_grad_norm_(net->parameters(), 10.0);
  impl_->optimizer->step();
  return loss.item<double>();
}

void Agent::sync_target() { copy_params(impl_->target, impl_->policy); }

void Agent::save(const std::string& path) const {
  try {
    torch::serialize::OutputArchive ar;
    impl_->policy->save(ar);
    ar.write("attune_hidden", torch::tensor({static_cast<std::int64_t>(impl_->opts.hidden)}));
    ar.write("attune_features", torch::tensor({static_cast<std::int64_t>(kFeatures)}));
    ar.write("attune_feature_version", torch::tensor({static_cast<std::int64_t>(kFeatureVersion)}));
    ar.write("attune_gamma", torch::tensor({impl_->opts.gamma}, torch::kFloat64));
    ar.save_to(path);
  } catch (const c10::Error& e) {
    throw Error(path + ": cannot write policy: " + e.what_without_backtrace());
  }
}

Agent Agent::load(const std::string& path) {
  try {
    torch::serialize::InputArchive ar;
    ar.load_from(path);
    torch::Tensor hidden, features, version, gamma;
    if (!ar.try_read("attune_hidden", hidden) || !ar.try_read("attune_features", features) ||
        !ar.try_read("attune_feature_version", version))
      throw Error(path + ": not an attune policy (no attune_hidden/attune_features entries)");
    if (features.item<std::int64_t>() != kFeatures || version.item<std::int64_t>() != kFeatureVersion)
      throw Error(path + ": policy made for " + std::to_string(features.item<std::int64_t>()) + " features (version " +
                  std::to_string(version.item<std::int64_t>()) + "), this attune uses " + std::to_string(kFeatures) +
                  " (version " + std::to_string(kFeatureVersion) + ")");
    AgentOptions o;
    o.hidden = static_cast<int>(hidden.item<std::int64_t>());
    if (ar.try_read("attune_gamma", gamma)) o.gamma = gamma.item<double>();
    Agent a(o);
    a.impl_->policy->load(ar);
    a.sync_target();
    return a;
  } catch (const c10::Error& e) {
    throw Error(path + ": cannot read policy: " + e.what_without_backtrace());
  }
}

}  // namespace attune::rl
