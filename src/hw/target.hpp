// hw/target.hpp — hardware targets and their intrinsics (the hw/ stage).
//
// A target is data, not code: a JSON file under targets/ names the machine (kind, cores, vector
// width, caches, compiler) and lists its intrinsics. An intrinsic has
//   - a compute abstraction: a tiny Op in attune's spec language with fixed extents and dtypes
//     (`C[i,j] += A[i,k] * B[k,j]`, 16x16x16, f16 in, f32 out), every index a single loop;
//   - a memory abstraction: per operand its memory scope, layout, alignment and stride rules;
//   - an `emit` object that tells codegen how to issue it (instruction, lanes, fragment shape).
// Files are validated on load; every problem raises attune::Error with one line of the form
//   "<file>: <json.field.path>: <what is wrong>".
// Tests: tests/hw/.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/op.hpp"

namespace attune {

enum class TargetKind : std::uint8_t { cpu, cuda, vta };
std::string_view target_kind_name(TargetKind k);

// Where an intrinsic operand must live when the intrinsic executes.
enum class MemScope : std::uint8_t { global, shared, reg, fragment, acc_buffer, inp_buffer, wgt_buffer };
std::string_view mem_scope_name(MemScope s);  // "register" for reg

// How an operand tile is laid out in its scope.
//   row_major / col_major: the tile's last / first dimension is contiguous;
//   broadcast: a single element replicated into every lane (CPU outer-product FMAs);
//   vnni: groups of k consecutive reduction elements interleaved per lane (AVX-512 VNNI);
//   blocked: the accelerator's native tile, contiguous as a whole (VTA buffers).
enum class Layout : std::uint8_t { row_major, col_major, broadcast, vnni, blocked };
std::string_view layout_name(Layout l);

struct OperandMemory {
  std::string tensor;                 // the compute abstraction's tensor name ("A")
  MemScope scope = MemScope::global;  // where the intrinsic reads or writes it
  std::vector<MemScope> staging;      // scopes the data passes through first, outermost first
  Layout layout = Layout::row_major;
  std::int64_t alignment = 1;             // bytes; a power of two
  bool unit_stride_inner = false;         // the innermost tile dimension must be contiguous
  std::int64_t leading_dim_multiple = 1;  // the leading dimension (elements) must divide by this
};

struct Intrinsic {
  std::string name;
  std::string comment;
  Op compute;                         // fixed extents; vars: spatial then reduction
  std::vector<OperandMemory> memory;  // in compute.tensors order
  nlohmann::json emit;                // the whole `emit` object, for codegen
  std::string emit_kind;              // emit["kind"], e.g. "avx2_fma_bcast", "mma_sync", "wmma"
  // Parameters the compute text was instantiated with (VTA: BATCH, BLOCK_IN, BLOCK_OUT), and
  // the config file they came from (empty when the inline defaults were used).
  std::map<std::string, std::int64_t> params;
  std::string config_path;

  const OperandMemory& memory_of(std::string_view tensor) const;  // throws Error when absent
  std::int64_t extent(std::string_view loop) const { return compute.var(loop).extent; }
  std::string shape_str() const;  // "16x16x16" (loop extents in var order)
};

struct CacheSizes {
  std::int64_t l1 = 0, l2 = 0, l3 = 0;  // bytes (0: none / unknown)
};

struct Target {
  std::string name;
  TargetKind kind = TargetKind::cpu;
  std::string comment;
  std::string arch;  // "haswell", "sm_90", ... (informational for codegen)
  int cores = 1;     // "auto" in the file: this machine's hardware threads
  int vector_bits = 0;
  int vector_registers = 0;  // architectural vector registers (cpu targets)
  CacheSizes caches;
  std::string compiler;  // "cc", "nvcc"; empty for vta
  std::vector<std::string> compiler_flags;
  std::vector<Intrinsic> intrinsics;
  std::string source;  // the file it was loaded from

  const Intrinsic& intrinsic(std::string_view name) const;  // throws Error naming the choices
  bool has_intrinsic(std::string_view name) const;
};

// A path (contains '/' or ends in ".json") or a bare name. Names are looked up as
// <dir>/<name>.json in target_dirs() (locations.hpp: $ATTUNE_TARGETS_DIR, installed, source tree). Aliases:
// "cpu"/"host" = host_cpu_target(), "cuda"/"gpu" = nvidia-h200.
Target load_target(const std::string& path_or_name);
// The shipped target for the CPU this process runs on: "x86-avx512" where it has AVX-512 F,
// VL, BW and DQ (x86-64-v4: Skylake-X, Ice Lake, Zen 4, Zen 5), else "x86-avx2".
std::string host_cpu_target();
// Why this CPU cannot run kernels built for cpu target `t` (its vectors are wider than the
// CPU's); empty when it can, and for targets whose kernels do not run on the host CPU.
// tune() refuses such a target before measuring anything.
std::string host_cannot_run(const Target& t);
// The vector width code for a CPU target is generated at: 512 or 256 bits.
inline int cpu_vector_bits(const Target& t) { return t.vector_bits >= 512 ? 512 : 256; }

// The vector register file kernels for a CPU target are generated for. The one source of the
// register budget: the code generator's register promotion, the schedule spaces' admissible
// register tiles and the RL agent's tile macros and cost model all read it.
struct VectorRegisters {
  int lanes = 8;   // f32 lanes of a vector: 8 (AVX2), 16 (AVX-512)
  int count = 16;  // architectural vector registers: 16 (AVX2), 32 (AVX-512)
  // Registers a register tile may fill with accumulators; the rest hold what streams through
  // the tile (a broadcast row element and a loaded vector at AVX2): 14 of 16, 28 of 32.
  int accumulators() const { return count - count / 8; }
};
// The target's: lanes from cpu_vector_bits(), count from the file's "vector_registers".
VectorRegisters cpu_vector_registers(const Target& t);
// Validates an already-read document; `origin` names it in messages, and relative config
// references resolve against its directory.
Target parse_target(std::string_view json_text, const std::string& origin);
// Names of the shipped targets (file stems in the directories above), sorted, unique.
std::vector<std::string> list_targets();

}  // namespace attune
