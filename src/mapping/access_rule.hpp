// mapping/access_rule.hpp — the AMOS validity check of one one-to-one match.
//
// With the matched op loops renamed to the intrinsic's loops and every other loop held fixed,
// an op operand's access must equal the intrinsic operand's up to a positive stride per loop
// and a constant offset. Concretely, for each dimension of the op tensor, the terms that use
// matched loops must be absent (a constant dimension) or a single `stride * loop` with
// stride > 0 and no division; and the intrinsic loops found this way must be exactly the
// intrinsic operand's loops, each in one dimension. The order of dimensions is not compared:
// a transposed operand is a layout, which staging into the intrinsic's scope fixes.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ir/op.hpp"

namespace attune::mapping {

// loop_of: op loop -> intrinsic loop, for the matched op loops only.
// Returns the reason the pair does not match, or nullopt when it does.
std::optional<std::string> check_operand(const Access& op_access, const Access& intr_access,
                                         const std::map<std::string, std::string>& loop_of);

}  // namespace attune::mapping
