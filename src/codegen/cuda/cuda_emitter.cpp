// The CUDA tensorizing emitter (codegen/codegen_cuda.hpp): block tiling, shared-memory staging
// and the two Tensor Core spellings (inline-PTX mma.sync, nvcuda::wmma).
#include "codegen/codegen_cuda.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "codegen/c_safe.hpp"
#include "codegen/cuda/cuda_types.hpp"
#include "codegen/tensorize/code_writer.hpp"
#include "codegen/tensorize/index_c.hpp"
#include "ir/error.hpp"
#include "ir/names.hpp"
#include "schedule/schedule.hpp"

namespace attune {

namespace {

using cuda::ctype;
using cuda::zero_of;
using tgen::decompose;
using tgen::flat_offset;
using tgen::read_guard;

const Access& access_of(const Op& op, const std::string& tensor) {
  for (const auto& in : op.inputs)
    if (in.tensor == tensor) return in;
  return op.output;
}

// Block geometry derived from the intrinsic's tile and the options.
struct Geometry {
  int tm, tn, tk;  // intrinsic tile
  int wm, wn;      // warps per block
  int fm, fn;      // intrinsic tiles per warp
  int ksteps;      // intrinsic k-steps per staged K slice
  int pad;         // shared-memory row padding (elements): 16 bytes keeps wmma's alignment
  int bm() const { return wm * fm * tm; }
  int bn() const { return wn * fn * tn; }
  int bk() const { return ksteps * tk; }
  int ld() const { return bk() + pad; }
  int threads() const { return 32 * wm * wn; }
};

class Emitter : private tgen::CodeWriter {
 public:
  Emitter(const TensorizePlan& p, const CudaCodegenOptions& o, std::string id) : p_(p), op_(p.op), id_(std::move(id)) {
    const std::string& k = p.intrinsic.emit_kind;
    if (k != "mma_sync" && k != "wmma")
      throw Error("the CUDA backend cannot emit intrinsic kind '" + k + "' (" + p.intrinsic.name + ")");
    mma_ = k == "mma_sync";
    in_t_ = op_.tensor(p.a_tensor).dtype;
    acc_t_ = op_.tensor(p.c_tensor).dtype;
    const int es = static_cast<int>(dtype_size(in_t_));
    g_.tm = static_cast<int>(p.m.tile);
    g_.tn = static_cast<int>(p.n.tile);
    g_.tk = static_cast<int>(p.k.tile);
    g_.wm = std::max(1, o.warps_m);
    g_.wn = std::max(1, o.warps_n);
    g_.fm = std::max(1, o.block_target / (g_.wm * g_.tm));
    g_.fn = std::max(1, o.block_target / (g_.wn * g_.tn));
    g_.ksteps = (g_.tk * es) % 32 == 0 ? 2 : 1;  // each wmma k-step must start 32-byte aligned
    g_.pad = 16 / es;
    std::int64_t biggest = 0;
    for (const auto& t : op_.tensors) biggest = std::max(biggest, t.numel());
    it_ = biggest < (std::int64_t{1} << 31) ? "int" : "long long";
    if (p.m.tiles() / g_.bm() + 1 > 65535)
      throw Error("the CUDA backend supports at most 65535 row blocks; M = " + std::to_string(p.m.extent));
  }

  std::string source() {
    std::ostringstream os;
    os << prelude();
    line("// " + id_ + ": block " + std::to_string(g_.bm()) + "x" + std::to_string(g_.bn()) + "x" +
         std::to_string(g_.bk()) + ", " + std::to_string(g_.wm) + "x" + std::to_string(g_.wn) + " warps of " +
         std::to_string(g_.fm) + "x" + std::to_string(g_.fn) + " " + comment_safe(p_.intrinsic.name) + " tiles");
    kernel();
    launcher();
    os << out_.str();
    return os.str();
  }

 private:
  std::string prelude() const {
    std::string s = "#include <cuda_fp16.h>\n#include <cuda_runtime.h>\n";
    if (!mma_) s += "#include <mma.h>\n";
    return s + "\n";
  }

  std::string params() const {
    std::string s;
    for (const auto& t : op_.tensors) {
      const bool out = t.name == op_.output.tensor;
      s += std::string(s.empty() ? "" : ", ") + (out ? "" : "const ") + ctype(t.dtype) + "* __restrict__ " + t.name;
    }
    return s;
  }

  void kernel() {
    const std::string IT = it_, T = ctype(in_t_), ACC = ctype(acc_t_);
    const std::string LD = std::to_string(g_.ld()), BM = std::to_string(g_.bm()), BN = std::to_string(g_.bn()),
                      BK = std::to_string(g_.bk());
    line("extern \"C\" __global__ void __launch_bounds__(" + std::to_string(g_.threads()) + ") " + id_ + "_kernel(" +
         params() + ") {");
    ++depth_;
    line("__shared__ __align__(128) " + T + " As[" + BM + " * " + LD + "];  // A' tile, row-major (M x K)");
    line("__shared__ __align__(128) " + T + " Bs[" + BN + " * " + LD + "];  // B' tile, column-major (N x K)");
    if (!mma_)
      line("__shared__ __align__(128) " + ACC + " Cs[" + std::to_string(g_.wm * g_.wn) + "][" +
           std::to_string(g_.tm * g_.tn) + "];  // one accumulator tile per warp on its way out");
    line("const int tid_ = threadIdx.x, warp_ = tid_ / 32, lane_ = tid_ % 32;");
    line("const int wm_ = warp_ / " + std::to_string(g_.wn) + ", wn_ = warp_ % " + std::to_string(g_.wn) + ";");
    line("const " + IT + " m0_ = (" + IT + ")blockIdx.y * " + BM + ", n0_ = (" + IT + ")blockIdx.x * " + BN + ";");
    open("for (" + IT + " z_ = blockIdx.z; z_ < " + std::to_string(p_.outer_count()) + "; z_ += gridDim.z) {");
    lines(decompose(op_, p_.outer_spatial, "z_", IT));
    declare_acc();
    for (const auto& v : p_.outer_reduction)
      open("for (" + IT + " " + tgen::cvar(v) + " = 0; " + tgen::cvar(v) + " < " + std::to_string(op_.var(v).extent) +
           "; ++" + tgen::cvar(v) + ") {");
    open("for (" + IT + " k0_ = 0; k0_ < " + std::to_string(p_.k.extent) + "; k0_ += " + BK + ") {");
    stage(p_.a_tensor, "As", p_.m, "m0_", /*row_fastest=*/false);
    stage(p_.b_tensor, "Bs", p_.n, "n0_", /*row_fastest=*/true);
    line("__syncthreads();");
    mma_ ? compute_mma() : compute_wmma();
    line("__syncthreads();");
    close();
    for (std::size_t i = 0; i < p_.outer_reduction.size(); ++i) close();
    mma_ ? store_mma() : store_wmma();
    close();
    --depth_;
    line("}");
  }

  // Stages the [rows x BK] tile of `tensor` (rows along `d` from `base`, K from k0_) into
  // `dst`[row * LD + k], zero outside the tensor and beyond the fused extents. row_fastest
  // makes consecutive threads walk rows (coalesced when rows are contiguous in global memory).
  void stage(const std::string& tensor, const std::string& dst, const FusedDim& d, const std::string& base,
             bool row_fastest) {
    const int rows = dst == "As" ? g_.bm() : g_.bn();
    const std::string R = std::to_string(rows), BK = std::to_string(g_.bk()), IT = it_;
    line("// stage " + tensor + " global -> shared (" + dst + ")");
    open("for (int e_ = tid_; e_ < " + R + " * " + BK + "; e_ += " + std::to_string(g_.threads()) + ") {");
    line(row_fastest ? "const int r_ = e_ % " + R + ", c_ = e_ / " + R + ";"
                     : "const int r_ = e_ / " + BK + ", c_ = e_ % " + BK + ";");
    line("const " + IT + " f_ = " + base + " + r_, fk_ = k0_ + c_;");
    line(ctype(in_t_) + " x_ = " + zero_of(in_t_) + ";");
    open("if (f_ < " + std::to_string(d.extent) + " && fk_ < " + std::to_string(p_.k.extent) + ") {");
    lines(decompose(op_, d.op_loops, "f_", IT));
    lines(decompose(op_, p_.k.op_loops, "fk_", IT));
    const Access& a = access_of(op_, tensor);
    const std::string g = read_guard(op_, a);
    line((g.empty() ? "" : "if (" + g + ") ") + std::string("x_ = ") + tensor + "[" + flat_offset(op_, a) + "];");
    close();
    line(dst + "[r_ * " + std::to_string(g_.ld()) + " + c_] = x_;");
    close();
  }

  void declare_acc() {
    const std::string FM = std::to_string(g_.fm), FN = std::to_string(g_.fn);
    if (mma_) {
      line("float acc_[" + FM + "][" + FN + "][4] = {};");
      return;
    }
    line("nvcuda::wmma::fragment<nvcuda::wmma::accumulator, " + shape() + ", " + ctype(acc_t_) + "> acc_[" + FM + "][" +
         FN + "];");
    line("for (int i_ = 0; i_ < " + FM + "; ++i_)");
    line("  for (int j_ = 0; j_ < " + FN + "; ++j_) nvcuda::wmma::fill_fragment(acc_[i_][j_], 0);");
  }

  std::string shape() const {
    return std::to_string(g_.tm) + ", " + std::to_string(g_.tn) + ", " + std::to_string(g_.tk);
  }

  void compute_wmma() {
    const std::string FM = std::to_string(g_.fm), FN = std::to_string(g_.fn), LD = std::to_string(g_.ld()),
                      T = ctype(in_t_), ns = "nvcuda::wmma::";
    open("for (int ks_ = 0; ks_ < " + std::to_string(g_.ksteps) + "; ++ks_) {");
    line(ns + "fragment<" + ns + "matrix_a, " + shape() + ", " + T + ", " + ns + "row_major> a_[" + FM + "];");
    line(ns + "fragment<" + ns + "matrix_b, " + shape() + ", " + T + ", " + ns + "col_major> b_[" + FN + "];");
    line("for (int i_ = 0; i_ < " + FM + "; ++i_)");
    line("  " + ns + "load_matrix_sync(a_[i_], As + (wm_ * " + std::to_string(g_.fm * g_.tm) + " + i_ * " +
         std::to_string(g_.tm) + ") * " + LD + " + ks_ * " + std::to_string(g_.tk) + ", " + LD + ");");
    line("for (int j_ = 0; j_ < " + FN + "; ++j_)");
    line("  " + ns + "load_matrix_sync(b_[j_], Bs + (wn_ * " + std::to_string(g_.fn * g_.tn) + " + j_ * " +
         std::to_string(g_.tn) + ") * " + LD + " + ks_ * " + std::to_string(g_.tk) + ", " + LD + ");");
    line("for (int i_ = 0; i_ < " + FM + "; ++i_)");
    line("  for (int j_ = 0; j_ < " + FN + "; ++j_) " + ns + "mma_sync(acc_[i_][j_], a_[i_], b_[j_], acc_[i_][j_]);");
    close();
  }

  // m16n8k16 fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16"): with g = lane / 4 and
  // q = lane % 4, A's registers hold rows g and g+8 at columns 2q, 2q+1 and 2q+8, 2q+9; B's
  // hold rows (k) 2q, 2q+1 and 2q+8, 2q+9 of column g; C's rows g and g+8, columns 2q, 2q+1.
  void compute_mma() {
    const std::string FM = std::to_string(g_.fm), FN = std::to_string(g_.fn), LD = std::to_string(g_.ld());
    line("const int g_ = lane_ >> 2, q_ = lane_ & 3;");
    open("for (int ks_ = 0; ks_ < " + std::to_string(g_.ksteps) + "; ++ks_) {");
    line("unsigned a_[" + FM + "][4], b_[" + FN + "][2];");
    open("for (int i_ = 0; i_ < " + FM + "; ++i_) {");
    line("const __half* pa_ = As + (wm_ * " + std::to_string(g_.fm * 16) + " + i_ * 16 + g_) * " + LD +
         " + ks_ * 16 + q_ * 2;");
    line("a_[i_][0] = *(const unsigned*)(pa_);");
    line("a_[i_][1] = *(const unsigned*)(pa_ + 8 * " + LD + ");");
    line("a_[i_][2] = *(const unsigned*)(pa_ + 8);");
    line("a_[i_][3] = *(const unsigned*)(pa_ + 8 * " + LD + " + 8);");
    close();
    open("for (int j_ = 0; j_ < " + FN + "; ++j_) {");
    line("const __half* pb_ = Bs + (wn_ * " + std::to_string(g_.fn * 8) + " + j_ * 8 + g_) * " + LD +
         " + ks_ * 16 + q_ * 2;");
    line("b_[j_][0] = *(const unsigned*)(pb_);");
    line("b_[j_][1] = *(const unsigned*)(pb_ + 8);");
    close();
    line("for (int i_ = 0; i_ < " + FM + "; ++i_)");
    open("  for (int j_ = 0; j_ < " + FN + "; ++j_) {");
    line("asm volatile(\"" +
         p_.intrinsic.emit.value("ptx", std::string("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")) +
         " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\\n\"");
    line("    : \"+f\"(acc_[i_][j_][0]), \"+f\"(acc_[i_][j_][1]), \"+f\"(acc_[i_][j_][2]), \"+f\"(acc_[i_][j_][3])");
    line(
        "    : \"r\"(a_[i_][0]), \"r\"(a_[i_][1]), \"r\"(a_[i_][2]), \"r\"(a_[i_][3]), \"r\"(b_[j_][0]), "
        "\"r\"(b_[j_][1]));");
    close();
    close();
  }

  // One guarded output element: fm_/fn_ are the fused row/column indices, `v` its value.
  void store_element(const std::string& v) {
    const std::string IT = it_;
    open("if (fm_ < " + std::to_string(p_.m.extent) + " && fn_ < " + std::to_string(p_.n.extent) + ") {");
    lines(decompose(op_, p_.m.op_loops, "fm_", IT));
    lines(decompose(op_, p_.n.op_loops, "fn_", IT));
    const std::string acc = ctype(acc_t_);
    line(op_.output.tensor + "[" + flat_offset(op_, op_.output) + "] = (" + ctype(op_.tensor(op_.output.tensor).dtype) +
         ")" + tgen::apply_epilogue(op_, v, "(" + acc + ")") + ";");
    close();
  }

  void store_mma() {
    const std::string IT = it_;
    line("const int g_ = lane_ >> 2, q_ = lane_ & 3;");
    line("for (int i_ = 0; i_ < " + std::to_string(g_.fm) + "; ++i_)");
    line("  for (int j_ = 0; j_ < " + std::to_string(g_.fn) + "; ++j_)");
    open("    for (int e_ = 0; e_ < 4; ++e_) {");
    line("const " + IT + " fm_ = m0_ + wm_ * " + std::to_string(g_.fm * 16) + " + i_ * 16 + g_ + (e_ >= 2 ? 8 : 0);");
    line("const " + IT + " fn_ = n0_ + wn_ * " + std::to_string(g_.fn * 8) + " + j_ * 8 + q_ * 2 + (e_ & 1);");
    line("const float v_acc_ = acc_[i_][j_][e_];");
    store_element("v_acc_");
    close();
  }

  void store_wmma() {
    const std::string IT = it_, TN = std::to_string(g_.tn);
    line("for (int i_ = 0; i_ < " + std::to_string(g_.fm) + "; ++i_)");
    open("  for (int j_ = 0; j_ < " + std::to_string(g_.fn) + "; ++j_) {");
    line("nvcuda::wmma::store_matrix_sync(Cs[warp_], acc_[i_][j_], " + TN + ", nvcuda::wmma::mem_row_major);");
    line("__syncwarp();");
    open("for (int e_ = lane_; e_ < " + std::to_string(g_.tm * g_.tn) + "; e_ += 32) {");
    line("const " + IT + " fm_ = m0_ + wm_ * " + std::to_string(g_.fm * g_.tm) + " + i_ * " + std::to_string(g_.tm) +
         " + e_ / " + TN + ";");
    line("const " + IT + " fn_ = n0_ + wn_ * " + std::to_string(g_.fn * g_.tn) + " + j_ * " + TN + " + e_ % " + TN +
         ";");
    line("const " + ctype(acc_t_) + " v_acc_ = Cs[warp_][e_];");
    store_element("v_acc_");
    close();
    line("__syncwarp();");
    close();
  }

  void launcher() {
    const std::int64_t gx = (p_.n.extent + g_.bn() - 1) / g_.bn(), gy = (p_.m.extent + g_.bm() - 1) / g_.bm();
    const std::int64_t gz = std::min<std::int64_t>(p_.outer_count(), 65535);
    line("");
    line("extern \"C\" void " + id_ + "_launch(void* const* buffers, cudaStream_t stream) {");
    line("  dim3 grid(" + std::to_string(gx) + ", " + std::to_string(gy) + ", " + std::to_string(gz) + ");");
    std::string args;
    for (std::size_t t = 0; t < op_.tensors.size(); ++t) {
      const Tensor& x = op_.tensors[t];
      const bool out = x.name == op_.output.tensor;
      args += std::string(t ? ", " : "") + "(" + (out ? "" : "const ") + ctype(x.dtype) + "*)buffers[" +
              std::to_string(t) + "]";
    }
    line("  " + id_ + "_kernel<<<grid, " + std::to_string(g_.threads()) + ", 0, stream>>>(" + args + ");");
    line("}");
  }

  const TensorizePlan& p_;
  const Op& op_;
  std::string id_;
  bool mma_ = false;
  DType in_t_ = DType::f16, acc_t_ = DType::f32;
  Geometry g_{};
  std::string it_ = "int";
};

}  // namespace

std::string cuda_kernel_name(const TensorizePlan& p) {
  // Only a label the spec parser would accept names the kernel (one from a database may hold
  // anything); its characters then map onto identifier characters.
  const bool labelled = !p.op.name.empty() && !label_problem(p.op.name);
  std::string s = "attune_";
  for (char c : (labelled ? p.op.name : std::string("op")) + "_" + p.intrinsic.name)
    s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s + "_m" + std::to_string(p.mapping_number);
}

Artifact lower_cuda(const TensorizePlan& plan, const CudaCodegenOptions& options) {
  check_c_names(plan.op);
  const std::string id = options.name.empty() ? cuda_kernel_name(plan) : options.name;
  if (!is_c_identifier(id)) throw Error("CUDA kernel name '" + comment_safe(id) + "' is not a C identifier");
  Emitter e(plan, options, id);
  const std::string body = e.source();
  std::ostringstream os;
  os << "// attune CUDA kernel " << id << "\n//\n"
     << c_comment_lines(print_spec(plan.op), "// ") << "//\n"
     << c_comment_lines(plan.str(), "// ") << "//\n"
     << c_comment_lines("step: " + to_json(plan.step()).dump(), "// ");
  os << body;
  Artifact a;
  a.language = "cuda";
  a.source = os.str();
  a.entry = id + "_launch";
  a.flags = {"-O3", "-std=c++17"};
  return a;
}

}  // namespace attune
