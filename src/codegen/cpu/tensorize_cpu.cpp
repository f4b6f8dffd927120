// The CPU tensorizing emitter (codegen/codegen_cpu_tensorize.hpp). The kernel follows the plan's
// shape: (optionally parallel) over (outer spatial point, block of `rows` fused rows), then
// blocks of `cols` column tiles of `lanes`, rows x cols register accumulators over every
// reduction, and guarded lane stores. The block loops are constant-trip C loops that gcc -O3
// unrolls, so the accumulators stay in registers (the search bounds rows x cols to fit them).
#include "codegen/codegen_cpu.hpp"
#include "codegen/codegen_cpu_tensorize.hpp"

#include <sstream>

#include "codegen/c_safe.hpp"
#include "codegen/tensorize/code_writer.hpp"
#include "codegen/tensorize/index_c.hpp"
#include "ir/error.hpp"
#include "schedule/schedule.hpp"

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
    const TensorizeSchedule& sc = p_.schedule;
    if (sc.rows < 1 || sc.cols < 1) throw Error("tensorize schedule: rows and cols must be at least 1");
    R_ = sc.rows;
    C_ = sc.cols;
    line("void attune_kernel(void* const* buffers) {");
    ++depth_;
    for (std::size_t t = 0; t < op_.tensors.size(); ++t) {
      const Tensor& x = op_.tensors[t];
      const bool out = x.name == op_.output.tensor;
      line(std::string(out ? "" : "const ") + ctype(x.dtype) + "* restrict " + x.name + " = (" + (out ? "" : "const ") +
           ctype(x.dtype) + "*)buffers[" + std::to_string(t) + "];");
    }
    // The row tile is one element on the CPU (the intrinsic's i < 1); a register block holds
    // R_ consecutive fused rows and C_ consecutive column tiles of `lanes`.
    const std::int64_t mb = (p_.m.extent + R_ - 1) / R_, total = p_.outer_count() * mb;
    const std::int64_t nb = (p_.n.tiles() + C_ - 1) / C_;
    if (sc.parallel) line("#pragma omp parallel for schedule(static)");
    open("for (long t_ = 0; t_ < " + std::to_string(total) + "L; ++t_) {");
    line("const long z_ = t_ / " + std::to_string(mb) + ", mb_ = t_ % " + std::to_string(mb) + ";");
    lines(decompose(op_, p_.outer_spatial, "z_", "long"));
    open("for (long nb_ = 0; nb_ < " + std::to_string(nb) + "L; ++nb_) {");
    line(isa_.vec + " acc_[" + std::to_string(R_) + "][" + std::to_string(C_) + "];");
    line("for (int r_ = 0; r_ < " + std::to_string(R_) + "; ++r_)");
    line("  for (int c_ = 0; c_ < " + std::to_string(C_) + "; ++c_) acc_[r_][c_] = " + isa_.zero + ";");
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
      if (padded(*d, f)) pad += (pad.empty() ? "" : " && ") + f + " < " + std::to_string(d->extent);
    open(pad.empty() ? "{" : "if (" + pad + ") {");
    for (const auto& [d, f] : dims) lines(decompose(op_, d->op_loops, f, "long"));
    const std::string g = read_guard(op_, a);
    line((g.empty() ? "" : "if (" + g + ") ") + var + " = " + tensor + "[" + flat_offset(op_, a) + "];");
    close();
  }

  // Whether the fused index `f` of `d` may run past d's extent: the intrinsic's padding, or a
  // row block that does not divide the rows.
  bool padded(const FusedDim& d, const std::string& f) const {
    if (&d == &p_.m) return (p_.m.extent + R_ - 1) / R_ * R_ != p_.m.extent;
    if (&d == &p_.n) return (p_.n.tiles() + C_ - 1) / C_ * C_ * p_.n.tile != p_.n.extent;
    return d.tiles() * d.tile != d.extent;
  }

  // Stages the block's column tiles of B' (global -> register, guarded), then for each row
  // broadcasts its A' element into every column tile's FMA.
  void step_fma() {
    const std::string L = std::to_string(isa_.lanes), R = std::to_string(R_), C = std::to_string(C_);
    const bool w = isa_.lanes == 16;
    line("const long fk_ = kt_;");
    line("float b_s[" + C + "][" + L + "] __attribute__((aligned(64)));  /* B' rows staged global -> register */");
    open("for (int c_ = 0; c_ < " + C + "; ++c_) {");
    open("for (int l_ = 0; l_ < " + L + "; ++l_) {");
    line("const long fn_ = (nb_ * " + C + " + c_) * " + L + " + l_;");
    guarded_read(p_.b_tensor, "x_", {{&p_.n, "fn_"}, {&p_.k, "fk_"}});
    line("b_s[c_][l_] = x_;");
    close();
    close();
    open("for (int r_ = 0; r_ < " + R + "; ++r_) {");
    line("const long fm_ = mb_ * " + R + " + r_;");
    guarded_read(p_.a_tensor, "a_", {{&p_.m, "fm_"}, {&p_.k, "fk_"}});
    line(w ? "const __m512 av_ = _mm512_set1_ps(a_);" : "const __m256 av_ = _mm256_broadcast_ss(&a_);");
    line("for (int c_ = 0; c_ < " + C + "; ++c_)");
    line(w ? "  acc_[r_][c_] = _mm512_fmadd_ps(av_, _mm512_load_ps(b_s[c_]), acc_[r_][c_]);"
           : "  acc_[r_][c_] = _mm256_fmadd_ps(av_, _mm256_load_ps(b_s[c_]), acc_[r_][c_]);");
    close();
  }

  void step_vnni() {
    const std::string D = std::to_string(p_.k.tile), L = std::to_string(isa_.lanes), R = std::to_string(R_),
                      C = std::to_string(C_);
    line("int8_t b_s[" + C + "][" + L + " * " + D + "] __attribute__((aligned(64)));  /* B' VNNI-interleaved */");
    open("for (int c_ = 0; c_ < " + C + "; ++c_) {");
    open("for (int l_ = 0; l_ < " + L + "; ++l_) {");
    open("for (int kk_ = 0; kk_ < " + D + "; ++kk_) {");
    line("const long fn_ = (nb_ * " + C + " + c_) * " + L + " + l_, fk_ = kt_ * " + D + " + kk_;");
    guarded_read(p_.b_tensor, "x_", {{&p_.n, "fn_"}, {&p_.k, "fk_"}});
    line("b_s[c_][l_ * " + D + " + kk_] = x_;");
    close();
    close();
    close();
    open("for (int r_ = 0; r_ < " + R + "; ++r_) {");
    line("const long fm_ = mb_ * " + R + " + r_;");
    line("uint8_t a_s[" + D + "];  /* one reduction group of A', broadcast to every lane */");
    open("for (int kk_ = 0; kk_ < " + D + "; ++kk_) {");
    line("const long fk_ = kt_ * " + D + " + kk_;");
    guarded_read(p_.a_tensor, "x_", {{&p_.m, "fm_"}, {&p_.k, "fk_"}});
    line("a_s[kk_] = x_;");
    close();
    line("int32_t a4_;");
    line("memcpy(&a4_, a_s, sizeof a4_);");
    line("const __m512i av_ = _mm512_set1_epi32(a4_);");
    line("for (int c_ = 0; c_ < " + C + "; ++c_)");
    line("  acc_[r_][c_] = _mm512_dpbusd_epi32(acc_[r_][c_], av_, _mm512_load_si512((const void*)b_s[c_]));");
    close();
  }

  // Stores the block with a guard per row and per lane (padding and block remainders).
  void store() {
    const std::string L = std::to_string(isa_.lanes), R = std::to_string(R_), C = std::to_string(C_);
    const std::string et = isa_.vnni ? "int32_t" : "float";
    open("for (int r_ = 0; r_ < " + R + "; ++r_) {");
    line("const long fm_ = mb_ * " + R + " + r_;");
    if (padded(p_.m, "fm_")) line("if (fm_ >= " + std::to_string(p_.m.extent) + "L) break;");
    lines(decompose(op_, p_.m.op_loops, "fm_", "long"));
    open("for (int c_ = 0; c_ < " + C + "; ++c_) {");
    line(et + " c_s[" + L + "] __attribute__((aligned(64)));");
    line(isa_.store + "((void*)c_s, acc_[r_][c_]);");
    open("for (int l_ = 0; l_ < " + L + "; ++l_) {");
    line("const long fn_ = (nb_ * " + C + " + c_) * " + L + " + l_;");
    if (padded(p_.n, "fn_")) line("if (fn_ >= " + std::to_string(p_.n.extent) + "L) break;");
    lines(decompose(op_, p_.n.op_loops, "fn_", "long"));
    const Access& c = op_.output;
    line(c.tensor + "[" + flat_offset(op_, c) + "] = (" + ctype(op_.tensor(c.tensor).dtype) + ")" +
         tgen::apply_epilogue(op_, "c_s[l_]", "(" + et + ")") + ";");
    close();
    close();
    close();
  }

  const TensorizePlan& p_;
  const Op& op_;
  Isa isa_;
  int R_ = 1, C_ = 1;  // the schedule's register block: rows x column tiles
};

}  // namespace

Artifact lower_cpu_tensorized(const TensorizePlan& plan, const std::vector<std::string>& flags) {
  check_c_names(plan.op);
  Emitter e(plan);
  const std::string body = e.kernel();
  std::ostringstream os;
  os << "/* attune tensorized kernel: " << comment_safe(plan.op.name.empty() ? "op" : plan.op.name) << "\n *\n"
     << c_comment_lines(print_spec(plan.op)) << " *\n"
     << c_comment_lines(plan.str()) << " *\n"
     << c_comment_lines("step: " + to_json(plan.step()).dump()) << " */\n";
  os << "#include <immintrin.h>\n#include <stdint.h>\n#include <string.h>\n\n" << body;
  Artifact a;
  a.language = "c";
  a.source = os.str();
  a.flags = cpu_kernel_flags(flags.empty() ? isa_of(plan.intrinsic).default_flags : flags);
  return a;
}

}  // namespace attune
