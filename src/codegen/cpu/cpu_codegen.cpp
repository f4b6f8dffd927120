// The CPU backend's entry point: header comment, prelude, and the kernel function.
#include <algorithm>
#include <sstream>

#include "codegen/c_safe.hpp"
#include "codegen/codegen_cpu.hpp"
#include "codegen/cpu/c_emitter.hpp"
#include "codegen/cpu/c_math.hpp"
#include "codegen/lowering.hpp"
#include "ir/error.hpp"

namespace attune {

namespace {

std::string prelude(int lanes) {
  const std::string bytes = std::to_string(lanes * 4);
  std::string splat;
  for (int i = 0; i < lanes; ++i) splat += i ? ", x" : "x";
  return "#include <stdint.h>\n#include <stdlib.h>\n\n"
         "/* Vector helpers: GCC vector extensions, " +
         std::to_string(lanes) +
         " f32 lanes. */\n"
         "typedef float vf __attribute__((vector_size(" +
         bytes +
         ")));\n"
         "typedef int vi __attribute__((vector_size(" +
         bytes +
         ")));\n"
         "static inline vf vld(const float* p) { vf v; __builtin_memcpy(&v, p, sizeof v); return v; }\n"
         "static inline void vst(float* p, vf v) { __builtin_memcpy(p, &v, sizeof v); }\n"
         // A broadcast spelled as a vector literal: `(vf){0} + x` also broadcasts, but adding
         // +0.0 is not an identity for -0.0, so gcc keeps a scalar add before every broadcast
         // (vaddss + register vbroadcastss instead of one vbroadcastss from memory): a 6x16
         // micro-kernel ran at 66% of its speed for that alone.
         "static inline vf vbc(float x) { return (vf){" +
         splat +
         "}; }\n"
         "static inline vf vrelu(vf v) { vi m = v > (vf){0}; return (vf)((vi)v & m); }\n\n";
}

}  // namespace

std::vector<std::string> cpu_kernel_flags(std::vector<std::string> flags) {
  const std::string no_pcom = "-fno-predictive-commoning";
  if (std::find(flags.begin(), flags.end(), no_pcom) == flags.end()) flags.push_back(no_pcom);
  return flags;
}

CpuCodegenOptions cpu_codegen_options(const Target& target) {
  if (target.kind != TargetKind::cpu)
    throw Error("target '" + target.name + "' is a " + std::string(target_kind_name(target.kind)) +
                " target; only cpu targets are lowered to C");
  CpuCodegenOptions o;
  o.vector_bits = cpu_vector_bits(target);
  o.vector_registers = cpu_vector_registers(target).count;
  o.flags = cpu_kernel_flags(target.compiler_flags.empty() ? o.flags : target.compiler_flags);
  return o;
}

Artifact lower_cpu(const LoopNest& nest, const CpuCodegenOptions& options) {
  check_c_names(nest.op);
  // The passes decide, the printer prints; the header comment shows the nest as scheduled.
  const LoopNest lowered = lower_cpu_nest(nest, options);
  cgen::CEmitter emitter(lowered, options);
  const std::string body = emitter.function_body();

  // Everything in the header comment goes through c_comment_lines (codegen/c_safe.hpp): the
  // label, the trace and the spec are outside text.
  std::ostringstream os;
  os << "/* attune kernel: " << comment_safe(nest.op.name.empty() ? "op" : nest.op.name) << "\n *\n";
  os << c_comment_lines(print_spec(nest.op));
  if (!options.trace_json.empty()) os << " *\n" << c_comment_lines("trace: " + options.trace_json);
  os << " *\n * loop nest:\n" << c_comment_lines(nest.str()) << " */\n";
  os << prelude(emitter.lanes());
  const bool math = nest.op.multi_stage() || nest.op.epilogue.value;
  if (math) os << cgen::math_prelude();
  Artifact a;
  os << "void " << a.entry << "(void* const* buffers) {\n" << body << "}\n";
  if (const auto& packed = emitter.prepackable(); !packed.empty()) {
    // The same nest printed twice more, split at its root packs (artifact.hpp's ABI).
    const PrepackSymbols sym = prepack_symbols(a.entry);
    os << "\n/* Pre-packing: the packs of const inputs at the root, once, for a caller that keeps them. */\n";
    for (const BufferDecl* b : packed)
      a.packed_bytes.push_back((b->numel() * static_cast<std::int64_t>(dtype_size(b->dtype)) + 63) / 64 * 64);
    os << "const long " << sym.packed_bytes << "[] = {";
    for (std::int64_t bytes : a.packed_bytes) os << bytes << ", ";
    os << "0};\n";
    os << "void " << sym.pack << "(void* const* buffers, void* const* packed) {\n"
       << cgen::CEmitter(lowered, options).function_body(cgen::BodyPart::pack) << "}\n";
    os << "void " << sym.prepacked << "(void* const* buffers, void* const* packed) {\n"
       << cgen::CEmitter(lowered, options).function_body(cgen::BodyPart::prepacked) << "}\n";
  }

  a.language = "c";
  a.source = os.str();
  a.flags = cpu_kernel_flags(options.flags);
  // sqrtf without errno is one instruction, which omp simd loops can vectorise.
  if (math) a.flags.push_back("-fno-math-errno");
  return a;
}

}  // namespace attune
