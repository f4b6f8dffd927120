// Fuzz target trace_replay: a schedule's JSON text (a --trace file, a database's
// records.trace) is read by the one schedule codec and its loop-nest steps replayed on an op.
// The first byte picks the op, the rest is the text. Any text is a schedule or an
// attune::Error; a schedule writes back to text that reads as the same schedule; replaying it
// gives a nest or an attune::Error naming the step; the nest prints and offers its legal moves.
#include <string>
#include <vector>

#include "fuzz.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "schedule/actions.hpp"
#include "schedule/schedule.hpp"
#include "schedule/transform.hpp"

namespace {

// Small ops of different shapes: a matrix product with an epilogue, a strided padded
// convolution, a transposed one (exact divisions) and a depthwise one.
const std::vector<attune::Op>& ops() {
  static const std::vector<attune::Op> all = [] {
    std::vector<attune::Op> v;
    for (const char* spec :
         {"gemm:M=12,N=10,K=7,epilogue=bias_relu", "conv2d:N=1,H=7,W=6,C=3,K=4,R=3,S=3,stride=2,pad=1",
          "conv2d_transpose:N=1,H=4,W=4,C=2,K=3,R=3,S=3,stride=2,pad=1", "depthwise_conv2d:N=1,H=5,W=5,C=4,R=3,S=3"})
      v.push_back(attune::op_from_cli(spec));
    return v;
  }();
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attune;
  if (size == 0) return 0;
  const Op& op = ops()[data[0] % ops().size()];
  Schedule s;
  try {
    s = schedule_from_string(fuzz::as_text(data + 1, size - 1), "trace");
  } catch (const Error&) {
    return 0;
  }
  const std::string text = schedule_to_string(s);
  try {
    if (!(schedule_from_string(text, "trace") == s)) fuzz::finding("the written schedule reads back differently", text);
  } catch (const Error& e) {
    fuzz::finding("the written schedule does not read back", text + "\n" + e.what());
  }
  if (s.knobs || s.nest.steps.empty()) return 0;
  try {
    const LoopNest nest = replay(op, s.nest);
    (void)nest.str();
    (void)legal_actions(nest);
  } catch (const Error&) {
  }
  return 0;
}
