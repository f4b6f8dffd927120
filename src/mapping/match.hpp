// mapping/match.hpp — the steps of mapping enumeration, one per source file:
//   operands.cpp  pairing op operands with intrinsic operands (and their dtypes)
//   matches.cpp   one-to-one loop matches, each checked by the access rule (access_rule.hpp)
//   unions.cpp    fusing valid matches into unions
//   enumerate.cpp the driver: padding, validity, de-duplication, the report
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "hw/target.hpp"
#include "ir/op.hpp"

namespace attune::mapping {

// Which op access plays each intrinsic operand.
struct OperandAssignment {
  std::vector<std::size_t> input_of;  // intrinsic input k <- op.inputs[input_of[k]]
  std::string dtype_reason;           // empty when every dtype matches the intrinsic's
};

// Every pairing of op inputs with intrinsic inputs, the op's own order first. Empty (with
// `why_none` set) when the operand counts differ.
std::vector<OperandAssignment> operand_assignments(const Op& op, const Intrinsic& intr, std::string& why_none);

// One op loop per intrinsic loop (in the intrinsic's var order).
struct Match {
  std::vector<std::string> op_loop;
  std::string reason;  // why the access rule rejects it; empty when valid
  bool valid() const { return reason.empty(); }
};

// Why no kind-respecting one-to-one match can exist ("no reduction loop"), or "".
std::string loop_count_problem(const Op& op, const Intrinsic& intr);

// All injective, kind-respecting matches in a fixed order (intrinsic loops outermost first,
// op loops in the op's var order), each checked against every operand pair.
std::vector<Match> one_to_one_matches(const Op& op, const Intrinsic& intr, const OperandAssignment& a);

// Per intrinsic loop, the op loops fused into it (in the op's var order).
using LoopSets = std::vector<std::vector<std::string>>;

// Every union of the valid matches in which some intrinsic loop receives more than one op loop,
// without repeats, smallest first. Returns false (and leaves `out` empty) when more than
// `max_unions` combinations would have to be examined.
bool fused_unions(const Op& op, const std::vector<Match>& valid, std::size_t n_loops, std::size_t max_unions,
                  std::vector<LoopSets>& out);

}  // namespace attune::mapping
