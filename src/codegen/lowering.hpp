// codegen/lowering.hpp — the CPU backend's lowering: a scheduled LoopNest becomes the nest the C
// printer prints, through a readable list of IR-to-IR passes (Halide's Lower.cpp style).
//
// Each pass takes a nest and returns it with its decisions written into the IR (Node::lowering,
// Stmt::scatter, BufferDecl::in_registers); the printer (codegen_cpu.hpp) follows them and decides
// nothing of its own but which bounds checks and guards it can leave out of a constant-folded
// unrolled copy (an interval analysis at its constants). Features, the RL cost model and tests
// read the passes' results instead of re-implementing the printer's rules.
//
//   mark_vector_loops   which vectorized loops become vector statements (else `omp simd`), and
//                       which of their statements are stored lane by lane (scatter)
//   promote_registers   which local buffers live in vector registers
//   step_phases         loops that step over one residue class of a strided read
//   split_tails         tile loops emitted as their whole tiles without bounds checks, then the tail
#pragma once

#include "codegen/codegen_cpu.hpp"
#include "schedule/loopnest.hpp"

namespace attune {

LoopNest mark_vector_loops(LoopNest nest, int lanes);
LoopNest promote_registers(LoopNest nest, int lanes, int vector_registers);  // after mark_vector_loops
LoopNest step_phases(LoopNest nest);
LoopNest split_tails(LoopNest nest);  // after step_phases: a stepped loop is never split

// Every pass, in order, with the lanes and registers of `options`.
LoopNest lower_cpu_nest(const LoopNest& nest, const CpuCodegenOptions& options);

// The numerator of a divided index, reduced modulo its divisor (divisor kept): two reads are in
// the same residue class when these are equal.
AffineExpr numerator_residue(const AffineExpr& e);

}  // namespace attune
