// When a statement of a vectorized loop can be vector code: the rules that mark_vector_loops
// decides with and the printer prints by (see pass_vector_loops.cpp for the why).
#pragma once

#include <string>
#include <vector>

#include "schedule/loopnest.hpp"

namespace attune::cgen {

bool uses(const Access& a, const std::string& v);
// `v` only in the last dimension, with coefficient 1 and no division: contiguous in v.
bool uses_only_last(const Access& a, const std::string& v);
// The accesses a statement makes: its destination, sources, and the bias where it is read.
std::vector<const Access*> accesses(const Stmt& s);

// An access readable (or writable) as one vector of lanes over v: invariant (a broadcast; not a
// store) or contiguous in v with no bounds check needed there.
bool access_vectorizable(const LoopNest& nest, const Access& a, const Stmt& s, const std::string& v);
bool stmt_vectorizable(const LoopNest& nest, const Stmt& s, const std::string& v);
// A write-back or copy whose source is vector-readable but whose destination is strided.
bool stmt_scatterable(const LoopNest& nest, const Stmt& s, const std::string& v);

}  // namespace attune::cgen
