// codegen/codegen_cpu_tensorize.hpp — a TensorizePlan (tensorize.hpp) onto an x86 SIMD intrinsic,
// as one C file with the CPU kernel ABI (artifact.hpp: `void attune_kernel(void* const*)`), so
// the runtime builds, runs and checks it like any other CPU candidate.
//
// Emit kinds: avx2_fma_bcast (8 f32 lanes), avx512_fma_bcast (16 lanes): the column dimension
// rides the lanes, the row element is broadcast; avx512_vnni: u8 x s8 -> s32, 16 lanes, 4-deep
// reduction groups staged VNNI-interleaved. Operand tiles are staged global -> register by
// guarded gathers (zero outside a tensor and in the padding beyond a fused extent), and the
// accumulator is stored with a guard per lane, so any valid mapping gives a correct kernel.
// The plan's TensorizeSchedule sets the register block (rows x column tiles) and whether the
// outer tiles run in parallel with OpenMP. Tests: tests/e2e/tensorize_cpu_test.cpp.
#pragma once

#include <string>
#include <vector>

#include "codegen/artifact.hpp"
#include "codegen/codegen_cpu.hpp"
#include "hw/target.hpp"
#include "schedule/tensorize.hpp"

namespace attune {

// `flags`: compiler flags (a target's, e.g. {"-O3", "-mavx2", "-mfma", "-fopenmp"}); empty:
// flags for the intrinsic's ISA. Throws Error for an emit kind the CPU backend cannot emit.
Artifact lower_cpu_tensorized(const TensorizePlan& plan, const std::vector<std::string>& flags = {});

}  // namespace attune
