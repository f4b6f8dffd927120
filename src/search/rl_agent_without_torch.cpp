// The RL agent in a build without libtorch (CMake: ATTUNE_WITH_TORCH=OFF; rl_agent.cpp is left
// out and this file takes its place). Every way to obtain an Agent throws one clear Error, so
// --strategy rl, `attune train-policy` and attune-rl-eval report it and the rest of attune,
// which never touches the agent, builds and runs as usual. No Agent object can exist here, so
// its other members are never reached.
#include "ir/error.hpp"
#include "search/rl.hpp"

namespace attune::rl {

namespace {

[[noreturn]] void refuse() {
  throw Error(
      "the RL agent (strategy rl, train-policy) is not available: attune was built without "
      "libtorch (ATTUNE_WITH_TORCH=OFF)");
}

}  // namespace

struct Agent::Impl {};

bool agent_available() { return false; }

Agent::Agent(AgentOptions) { refuse(); }
Agent::~Agent() = default;
Agent::Agent(Agent&&) noexcept = default;
Agent& Agent::operator=(Agent&&) noexcept = default;
Agent Agent::load(const std::string&) { refuse(); }

const AgentOptions& Agent::options() const { refuse(); }
std::vector<float> Agent::q_values(const std::vector<float>&, bool) const { refuse(); }
std::size_t Agent::act(const std::vector<Move>&, double, std::mt19937_64&) const { refuse(); }
std::vector<float> Agent::targets(const std::vector<const Transition*>&) const { refuse(); }
double Agent::learn(const std::vector<const Transition*>&) { refuse(); }
void Agent::sync_target() { refuse(); }
void Agent::save(const std::string&) const { refuse(); }

}  // namespace attune::rl
