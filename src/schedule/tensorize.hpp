// schedule/tensorize.hpp — applying a mapping: the op's loops reshaped into an intrinsic's
// iteration space (the schedule stage's tensorize step).
//
// A valid Mapping (mapping.hpp) says which op loops feed each intrinsic loop. Tensorizing
// reshapes the nest into
//
//   for z  < prod(unmapped spatial loops)            (outer, "batch" of tiles)
//   for mt < ceil(M / tm), nt < ceil(N / tn):        (tile loops)
//     acc = 0
//     for unmapped reduction loops, kt < ceil(K / tk):
//       stage A' tile [tm x tk], B' tile [tk x tn]   (memory abstraction: gather with guards)
//       acc = intrinsic(A', B', acc)
//     store acc -> C (guards, epilogue)
//
// where M, N, K are the fused extents of the op loops on the intrinsic's row loop (in A and C),
// column loop (in B and C) and reduction loop, and A'[I,K] reads the op's A access with the
// fused indices I, K decomposed into the op loops (row-major over the op's var order). Reads
// outside a tensor, at an inexact division, or in the padding beyond a fused extent are zero;
// stores are guarded. Every backend emits this shape (codegen_cpu_tensorize.hpp,
// codegen_cuda.hpp); the plan is what they share.
//
// This is a codegen-level tensorize: the plan is not a LoopNest transformation, so it does not
// compose with split/reorder/pack traces. Its schedule is instead a few knobs of its own
// (TensorizeSchedule: a register block of rows x column tiles, parallel or not), which the
// search explores per mapping (src/search/mapping_space.cpp). A schedule (schedule.hpp) records
// it as a TensorizeStep that ends the schedule; it replays by re-enumerating the mappings and
// checking the loops still match (tensorize_plan).
// Tests: tests/schedule/tensorize_test.cpp, tests/codegen/, tests/e2e/tensorize_cpu_test.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hw/target.hpp"
#include "ir/op.hpp"
#include "mapping/mapping.hpp"
#include "schedule/transform.hpp"

namespace attune {

// One of the three GEMM-shaped dimensions a tensorized kernel iterates.
struct FusedDim {
  std::string intrinsic_loop;         // "i"; empty when the intrinsic has no such loop
  std::vector<std::string> op_loops;  // fused, outermost first (the op's var order)
  std::int64_t extent = 1;            // product of the op loops' extents (1 when none)
  std::int64_t tile = 1;              // the intrinsic loop's extent (1 when absent)
  std::int64_t tiles() const { return (extent + tile - 1) / tile; }
};

// How a backend schedules the plan's tile loops. The CPU backend blocks `rows` consecutive
// fused rows by `cols` consecutive column tiles into rows x cols register accumulators (each
// staged B' vector then feeds `rows` FMAs, each broadcast A' element `cols`), and runs the
// (outer spatial point, row block) loop in parallel when `parallel`. The CUDA backend ignores
// it (its block shape is fixed, codegen_cuda.hpp).
struct TensorizeSchedule {
  int rows = 1;
  int cols = 1;
  bool parallel = true;
  bool operator==(const TensorizeSchedule&) const = default;
};

// The tensorize step as a schedule records it: pure data, resolved against an op and a target
// by tensorize_plan(). Its JSON is the schedule codec's (schedule.hpp).
struct TensorizeStep {
  std::string intrinsic;
  int mapping = 0;  // as `attune map` numbers them; 0: the default (plan_tensorize)
  // The op loops the mapping put on each intrinsic loop when it was recorded: a mapping
  // enumeration that changed since is caught rather than replayed as another kernel. Absent:
  // not checked.
  std::optional<std::map<std::string, std::vector<std::string>>> loops;
  // Absent in steps recorded before schedules existed: TensorizeSchedule{}.
  std::optional<TensorizeSchedule> schedule;
  bool operator==(const TensorizeStep&) const = default;
};

struct TensorizePlan {
  Op op;
  Intrinsic intrinsic;
  Mapping mapping;
  int mapping_number = 0;  // 1-based, as `attune map` numbers the report's items
  // The op tensors playing the intrinsic's A (first input), B (second input) and C (output).
  std::string a_tensor, b_tensor, c_tensor;
  FusedDim m, n, k;                          // row, column and reduction dimensions
  std::vector<std::string> outer_spatial;    // unmapped spatial loops (op order)
  std::vector<std::string> outer_reduction;  // unmapped reduction loops (op order)
  TensorizeSchedule schedule;

  std::int64_t outer_count() const;  // product of the outer spatial extents
  std::string str() const;           // the reshaped nest, for comments and people
  TensorizeStep step() const;        // what a schedule records of it
};

// Whether `m` (a mapping of `op` onto `intr`) can be tensorized, with the reason when not:
// the mapping must be valid, the intrinsic GEMM-shaped (C[i,j] += A[i,k] * B[k,j] or without i)
// and its emit kind one a backend implements.
Applicability tensorize_applicable(const Op& op, const Intrinsic& intr, const Mapping& m);

// The plan for mapping number `number` (1-based over enumerate_mappings(op, intr).items, as
// `attune map` prints them); number 0 picks the default: the valid mapping that puts the most
// iterations on the intrinsic's loops (implicit GEMM for convolutions), least padding first.
// Throws Error with one line naming the number and the choices, or the reason it does not apply.
TensorizePlan plan_tensorize(const Op& op, const Intrinsic& intr, int number = 0);
// A plan for every mapping of `op` onto `intr` that tensorize_applicable() accepts, in the
// report's order (mapping_number tells which); empty when there are none. Enumerates once.
std::vector<TensorizePlan> plan_every_tensorize(const Op& op, const Intrinsic& intr);
// Replays a recorded step: the same intrinsic (looked up in `target`) and mapping number, and
// the loops must still be the ones recorded. Throws Error naming what differs.
TensorizePlan tensorize_plan(const Op& op, const Target& target, const TensorizeStep& step);

// The emit kinds a tensorizing backend implements.
bool tensorize_supported_kind(const std::string& emit_kind);

}  // namespace attune
