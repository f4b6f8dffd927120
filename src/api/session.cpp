// attune::Session (attune.hpp): the tuner, the database and the build cache behind the C++ API.
//
// A Session keeps its target and database path, not an open connection: tune() opens its own,
// and each read opens the file read-only, so a session never holds the database locked.
#include <utility>

#include "api/boundary.hpp"
#include "api/kernel_impl.hpp"
#include "api/rebuild.hpp"
#include "api/reference_check.hpp"
#include "api/session_impl.hpp"
#include "codegen/codegen_vta.hpp"
#include "db/db.hpp"
#include "hw/target.hpp"
#include "runtime/memory_estimate.hpp"
#include "runtime/runtime.hpp"
#include "search/tuner.hpp"

namespace attune {


namespace {

std::string describe_op(const Op& op) { return op.name.empty() ? "this op" : "'" + op.name + "'"; }

std::vector<TensorInfo> describe_tensors(const Op& op) {
  std::vector<TensorInfo> out;
  for (const auto& t : op.tensors)
    out.push_back({t.name, t.shape, std::string(dtype_name(t.dtype)), t.name == op.output.tensor});
  return out;
}

BestKernel best_kernel(const Op& op, const Record& r) { return {gflops_of(op, r.median_s), r.median_s, r.trace}; }

}  // namespace

Session::Session(const std::string& target, const std::string& database)
    : impl_(at_api_boundary("session", [&] {
        if (database == ":memory:")
          throw Error("attune::Session needs a database file: ':memory:' would lose each tune's records");
        auto impl = std::make_unique<Impl>();
        impl->target_arg = target;
        impl->target_name = tuning_target_name(target);  // an unknown target fails here
        impl->database = database;
        Database::open(database, OpenMode::read_write_create);  // created now: a bad path fails here
        return impl;
      })) {}

Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

const std::string& Session::target() const { return impl_->target_name; }
const std::string& Session::database() const { return impl_->database; }

TuneSummary Session::tune(const std::string& spec, const Budget& budget) {
  return at_api_boundary("tune", [&] {
    if (budget.trials < 0 || budget.seconds < 0 || budget.threads < 0)
      throw Error("tune: budget values must not be negative");
    if (budget.trials == 0 && budget.seconds == 0) throw Error("tune: the budget needs trials or seconds");
    const Op op = op_from_cli(spec);
    check_memory_limit(op, budget.max_memory ? budget.max_memory : default_memory_limit());
    TuneOptions o;
    o.target = impl_->target_arg;
    o.db_path = impl_->database;
    o.trials = budget.trials;  // 0 with seconds only: no trial limit
    o.time_s = budget.seconds;
    o.threads = budget.threads;
    const TuneResult r = attune::tune(op, o);
    return TuneSummary{r.trials_total, r.trials_run, r.valid, r.best_gflops};
  });
}

std::optional<BestKernel> Session::best(const std::string& spec) const {
  return at_api_boundary("best", [&]() -> std::optional<BestKernel> {
    Op op = op_from_cli(spec);
    const auto r = impl_->best_record(op);
    if (!r) return std::nullopt;
    return best_kernel(op, *r);
  });
}

Kernel Session::load(const std::string& spec) const {
  return at_api_boundary("load", [&] {
    Op op = op_from_cli(spec);
    if (is_vta_target_arg(impl_->target_arg))
      throw Error("load: target " + impl_->target_name + " is simulated; only cpu targets give a kernel to call");
    const Target target = load_target(impl_->target_arg);
    if (target.kind != TargetKind::cpu)
      throw Error("load: target " + target.name + " is a " + std::string(target_kind_name(target.kind)) +
                  " target; only cpu targets give a kernel to call");
    check_memory_limit(op, default_memory_limit());  // the reference check allocates the tensors
    const auto record = impl_->best_record(op);
    if (!record)
      throw Error("load: " + impl_->database + " has no verified kernel for " + describe_op(op) + " on target " +
                  impl_->target_name + " (tune it first)");

    const Artifact artifact = rebuild_artifact(op, target, *record);
    const BuildResult built = Builder().build(artifact);
    const std::string what = "record " + std::to_string(record->id) + " of " + describe_op(op);
    if (!built.ok) throw Error("load: " + what + " does not compile: " + built.error);
    auto impl = std::make_unique<Kernel::Impl>(built.so_path, artifact.entry);
    check_against_reference(op, impl->entry, "load: " + what);
    impl->tensors = describe_tensors(op);
    impl->measured = best_kernel(op, *record);
    return Kernel(std::move(impl));
  });
}

}  // namespace attune
