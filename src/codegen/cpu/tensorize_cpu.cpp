// The CPU tensorizing emitter (attune/codegen_cpu_tensorize.hpp). The kernel follows the plan's
// shape: parallel over (outer spatial point, row), then column tiles of `lanes`, a register
// accumulator over every reduction, and guarded lane stores.
#include "attune/codegen_cpu_tensorize.hpp"

#include <sstream>

#include "attune/error.hpp"
#include "codegen/tensorize/code_writer.hpp"
#include "codegen/tensorize/index_c.hpp"

namespace attune {

namespace {

using tgen::decompose;
using tgen::flat_offset;
using tgen::read_guard;

std::string ctype(DType t) {
  switch (t) {
    case DType::f32: return "float";
    case DType::i8: return "int8_t";
    case DType::u8: return "uint8_t";
    case DType::i32: return "int32_t";
    case DType::f16: break;
  }
  throw Error("the CPU tensorizer has no C type for " + std::string(dtype_name(t)));
}

// How one emit kind spells its vector type and operations.
struct Isa {
  int lanes = 8;
  bool vnni = false;
  std::string vec, zero, store;  // store: (ptr, v)
  std::vector<std::string> default_flags;
};

Isa isa_of(const Intrinsic& intr) {
  Isa i;
  const std::string& k = intr.emit_kind;
  i.lanes = intr.emit.value("lanes", 8);
  if (k == "avx2_fma_bcast") {
    i.vec = "__m256";
    i.zero = "_mm256_setzero_ps()";
    i.store = "_mm256_store_ps";
    i.default_flags = {"-O3", "-mavx2", "-mfma", "-fopenmp"};
  } else if (k == "avx512_fma_bcast") {
    i.vec = "__m512";
    i.zero = "_mm512_setzero_ps()";
    i.store = "_mm512_store_ps";
    i.default_flags = {"-O3", "-mavx512f", "-fopenmp"};
  } else if (k == "avx512_vnni") {
    i.vnni = true;
    i.vec = "__m512i";
    i.zero = "_mm512_setzero_si512()";
    i.store = "_mm512_store_si512";
    i.default_flags = {"-O3", "-mavx512f", "-mavx512vnni", "-fopenmp"};
  } else {
    throw Error("the CPU backend cannot emit intrinsic kind '" + k + "' (" + intr.name + ")");
  }
  return i;
}

const Access& access_of(const Op& op, const std::string& tensor) {
  for (const auto& in : op.inputs)
    if (in.tensor == tensor) return in;
  return op.output;
}

class Emitter : private tgen::CodeWriter {
 public:
  explicit Emitter(const TensorizePlan& p) : p_(p), op_(p.op), isa_(isa_of(p.intrinsic)) {}

  std::string kernel() {
    line("void attune_kernel(void* const* buffers) {");
    ++depth_;
    for (std::size_t t = 0; t < op_.tensors.size(); ++t) {
      const Tensor& x = op_.tensors[t];
      const bool out = x.name == op_.output.tensor;
      line(std::string(out ? "" : "const ") + ctype(x.dtype) + "* restrict " + x.name + " = (" + (out ? "" : "const ") +
           ctype(x.dtype) + "*)buffers[" + std::to_string(t) + "];");
    }
    const std::int64_t mt = p_.m.tiles(), total = p_.outer_count() * mt;
    line("#pragma omp parallel for schedule(static)");
    open("for (long t_ = 0; t_ < " + std::to_string(total) + "L; ++t_) {");
    line("const long z_ = t_ / " + std::to_string(mt) + ", fm_ = t_ % " + std::to_string(mt) + ";");
    lines(decompose(op_, p_.outer_spatial, "z_", "long"));
    lines(decompose(op_, p_.m.op_loops, "fm_", "long"));  // the row tile is one element on the CPU
    open("for (long nt_ = 0; nt_ < " + std::to_string(p_.n.tiles()) + "L; ++nt_) {");
    line(isa_.vec + " acc_ = " + isa_.zero + ";");
    for (const auto& v : p_.outer_reduction)
      open("for (long " + tgen::cvar(v) + " = 0; " + tgen::cvar(v) + " < " + std::to_string(op_.var(v).extent) +
           "L; ++" + tgen::cvar(v) + ") {");
    open("for (long kt_ = 0; kt_ < " + std::to_string(p_.k.tiles()) + "L; ++kt_) {");
    isa_.vnni ? step_vnni() : step_fma();
    close();
    for (std::size_t i = 0; i < p_.outer_reduction.size(); ++i) close();
    store();
    close();
    close();
    --depth_;
    line("}");
    return out_.str();
  }

 private:
  // A guarded read of `tensor` into the new variable `var`, the op loops of `dims` decomposed
  // from the fused indices (with their padding guards) first.
  void guarded_read(const std::string& tensor, const std::string& var,
                    const std::vector<std::pair<const FusedDim*, std::string>>& dims) {
    const Access& a = access_of(op_, tensor);
    line(ctype(op_.tensor(tensor).dtype) + " " + var + " = 0;");
    std::string pad;
    for (const auto& [d, f] : dims)
      if (d->tiles() * d->tile != d->extent) pad += (pad.empty() ? "" : " && ") + f + " < " + std::to_string(d->extent);
    open(pad.empty() ? "{" : "if (" + pad + ") {");
    for (const auto& [d, f] : dims) lines(decompose(op_, d->op_loops, f, "long"));
    const std::string g = read_guard(op_, a);
    line((g.empty() ? "" : "if (" + g + ") ") + var + " = " + tensor + "[" + flat_offset(op_, a) + "];");
    close();
  }

  void step_fma() {
    const std::string L = std::to_string(isa_.lanes);
    const bool w = isa_.lanes == 16;
    line("const long fk_ = kt_;");
    guarded_read(p_.a_tensor, "a_", {{&p_.m, "fm_"}, {&p_.k, "fk_"}});
    line("float b_s[" + L + "] __attribute__((aligned(64)));  /* B' row staged global -> register */");
    open("for (int l_ = 0; l_ < " + L + "; ++l_) {");
    line("const long fn_ = nt_ * " + L + " + l_;");
    guarded_read(p_.b_tensor, "x_", {{&p_.n, "fn_"}, {&p_.k, "fk_"}});
    line("b_s[l_] = x_;");
    close();
    line(w ? "acc_ = _mm512_fmadd_ps(_mm512_set1_ps(a_), _mm512_load_ps(b_s), acc_);"
           : "acc_ = _mm256_fmadd_ps(_mm256_broadcast_ss(&a_), _mm256_load_ps(b_s), acc_);");
  }

  void step_vnni() {
    const std::string D = std::to_string(p_.k.tile), L = std::to_string(isa_.lanes);
    line("uint8_t a_s[" + D + "];  /* one reduction group of A', broadcast to every lane */");
    open("for (int kk_ = 0; kk_ < " + D + "; ++kk_) {");
    line("const long fk_ = kt_ * " + D + " + kk_;");
    guarded_read(p_.a_tensor, "x_", {{&p_.m, "fm_"}, {&p_.k, "fk_"}});
    line("a_s[kk_] = x_;");
    close();
    line("int8_t b_s[" + L + " * " + D + "] __attribute__((aligned(64)));  /* B' VNNI-interleaved */");
    open("for (int l_ = 0; l_ < " + L + "; ++l_) {");
    open("for (int kk_ = 0; kk_ < " + D + "; ++kk_) {");
    line("const long fn_ = nt_ * " + L + " + l_, fk_ = kt_ * " + D + " + kk_;");
    guarded_read(p_.b_tensor, "x_", {{&p_.n, "fn_"}, {&p_.k, "fk_"}});
    line("b_s[l_ * " + D + " + kk_] = x_;");
    close();
    close();
    line("int32_t a4_;");
    line("memcpy(&a4_, a_s, sizeof a4_);");
    line("acc_ = _mm512_dpbusd_epi32(acc_, _mm512_set1_epi32(a4_), _mm512_load_si512((const void*)b_s));");
  }

  void store() {
    const std::string L = std::to_string(isa_.lanes);
    const std::string et = isa_.vnni ? "int32_t" : "float";
    line(et + " c_s[" + L + "] __attribute__((aligned(64)));");
    line(isa_.store + "((void*)c_s, acc_);");
    open("for (int l_ = 0; l_ < " + L + "; ++l_) {");
    line("const long fn_ = nt_ * " + L + " + l_;");
    if (p_.n.tiles() * p_.n.tile != p_.n.extent) line("if (fn_ >= " + std::to_string(p_.n.extent) + "L) break;");
    lines(decompose(op_, p_.n.op_loops, "fn_", "long"));
    const Access& c = op_.output;
    line(c.tensor + "[" + flat_offset(op_, c) + "] = (" + ctype(op_.tensor(c.tensor).dtype) + ")" +
         tgen::apply_epilogue(op_, "c_s[l_]", "(" + et + ")") + ";");
    close();
  }

  const TensorizePlan& p_;
  const Op& op_;
  Isa isa_;
};

std::string commented(const std::string& text) {
  std::string out;
  std::istringstream is(text);
  for (std::string l; std::getline(is, l);) {
    for (std::size_t p; (p = l.find("*/")) != std::string::npos;) l.replace(p, 2, "* /");
    out += " * " + l + "\n";
  }
  return out;
}

}  // namespace

Artifact lower_cpu_tensorized(const TensorizePlan& plan, const std::vector<std::string>& flags) {
  Emitter e(plan);
  const std::string body = e.kernel();
  std::ostringstream os;
  os << "/* attune tensorized kernel: " << (plan.op.name.empty() ? "op" : plan.op.name) << "\n *\n"
     << commented(print_spec(plan.op)) << " *\n"
     << commented(plan.str()) << " *\n * step: " << plan.to_json().dump() << "\n */\n";
  os << "#include <immintrin.h>\n#include <stdint.h>\n#include <string.h>\n\n" << body;
  Artifact a;
  a.language = "c";
  a.source = os.str();
  a.flags = flags.empty() ? isa_of(plan.intrinsic).default_flags : flags;
  return a;
}

}  // namespace attune
