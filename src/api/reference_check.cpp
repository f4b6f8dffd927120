// check_against_reference (api/reference_check.hpp).
#include "api/reference_check.hpp"

#include <vector>

#include "ir/buffer.hpp"
#include "ir/error.hpp"
#include "ir/evaluator.hpp"
#include "runtime/runtime.hpp"

namespace attune {

void check_against_reference(const Op& op, void (*kernel)(void* const*), const std::string& what) {
  const MeasureOptions runner_defaults;  // the seed and tolerance every candidate was checked with
  std::vector<Buffer> want = make_buffers(op, runner_defaults.seed);
  std::vector<Buffer> got = make_buffers(op, runner_defaults.seed);
  evaluate(op, want);
  std::vector<void*> args;
  for (auto& b : got) args.push_back(b.data());
  kernel(args.data());
  const auto out = static_cast<std::size_t>(op.tensor_index(op.output.tensor));
  const Comparison c = compare(got[out], want[out], runner_defaults.rtol);
  if (!c.ok)
    throw Error(what + ": the loaded kernel's output differs from attune's reference evaluator (" + c.str() +
                "); it is not used");
}

}  // namespace attune
