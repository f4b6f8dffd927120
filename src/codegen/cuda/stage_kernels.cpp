// cuda/stage_kernels.cpp — CUDA for multi-stage ops (codegen_cuda.hpp: lower_cuda_stages).
//
// Why a file of its own: cuda_emitter.cpp lowers one contraction mapped onto a Tensor Core
// intrinsic; a multi-stage op (softmax, norms, pooling, attention) is a chain of stages with
// reductions and elementwise math, which this lowers plainly and correctly first: one kernel per
// stage, one thread per output element (a grid-stride loop), the stage's reduction a loop inside
// the thread accumulating in float from its identity. Reads outside a tensor are zero, except in
// max=/min= stages, where the point is skipped, as in stage_evaluator.cpp.
//
// Nothing is printed twice: values come from the printer the CPU backend uses
// (codegen/stage_expr_c.hpp) with CUDA's math functions; indices, read guards and the
// decomposition of a thread's point from the tensorizers' helpers (codegen/tensorize/index_c.hpp)
// over a view of the stage as an op. Names reach the text only through codegen/c_safe.hpp's
// checks (tensors, variables) and its comment writer (the spec, labels). Not tuned: no shared
// memory, no warp-level reductions, no fusion of stages (docs/ARCHITECTURE.md).
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "codegen/c_safe.hpp"
#include "codegen/codegen_cuda.hpp"
#include "codegen/cuda/cuda_types.hpp"
#include "codegen/stage_expr_c.hpp"
#include "codegen/tensorize/code_writer.hpp"
#include "codegen/tensorize/index_c.hpp"
#include "ir/error.hpp"
#include "ir/names.hpp"

namespace attune {

namespace {

constexpr int kBlock = 256;                     // threads per block
constexpr std::int64_t kMaxBlocks = 65535;      // per launch; the grid-stride loop covers the rest
constexpr std::int64_t kWorkspaceAlign = 256;   // bytes, per intermediate in the workspace
constexpr std::int64_t kIntLimit = 2147483647;  // indices fit `int` below this

// CUDA's own math (a few ulp from the reference's double). fmaxf/fminf differ from the
// reference's `a > b ? a : b` only where an operand is NaN: they return the other one.
const cgen::MathSpelling& cuda_math() {
  static const cgen::MathSpelling m = [] {
    cgen::MathSpelling s;
    s.exp = "expf";
    s.log = "logf";
    s.sqrt = "sqrtf";
    s.rsqrt = "rsqrtf";
    s.erf = "erff";
    s.tanh = "tanhf";
    s.abs = "fabsf";
    s.max = "fmaxf";
    s.min = "fminf";
    s.cast = [](DType t, const std::string& v) { return cuda::to_float(t, cuda::from_float(t, v)); };
    return s;
  }();
  return m;
}

// Stage `st` as a contraction-shaped op over every tensor (intermediates too) and the stage's
// variables, which is what the index helpers of tensorize/index_c.hpp look names up in.
Op stage_view(const Op& op, const Stage& st) {
  Op v;
  v.name = op.name;
  v.tensors = op.tensors;
  v.tensors.insert(v.tensors.end(), op.locals.begin(), op.locals.end());
  v.vars = st.vars;
  return v;
}

std::vector<std::string> spatial_of(const Stage& st) {
  std::vector<std::string> r;
  for (const auto& v : st.vars)
    if (!v.reduction) r.push_back(v.name);
  return r;
}

// [lo, hi] of an index's numerator over the stage's domain.
std::pair<std::int64_t, std::int64_t> numerator_range(const Op& view, const AffineExpr& e) {
  std::int64_t lo = e.constant, hi = e.constant;
  for (const auto& [v, c] : e.terms) (c < 0 ? lo : hi) += c * (view.var(v).extent - 1);
  return {lo, hi};
}

// Whether 32-bit indices suffice: every tensor, every stage's domain and every index's numerator.
bool fits_int(const Op& op) {
  for (const auto* list : {&op.tensors, &op.locals})
    for (const auto& t : *list)
      if (t.numel() >= kIntLimit) return false;
  for (const auto& st : op.stages) {
    if (st.domain_points() >= kIntLimit) return false;
    const Op view = stage_view(op, st);
    bool ok = true;
    auto check = [&](const Access& a) {
      for (const auto& e : a.index) {
        const auto [lo, hi] = numerator_range(view, e);
        ok = ok && lo > -kIntLimit && hi < kIntLimit;
      }
    };
    check(st.out);
    for_each_read(st.value, check);
    if (!ok) return false;
  }
  return true;
}

// One thread per output element needs each element written by one point of the spatial
// variables: true when every output dimension holds one variable (or none).
void check_output_index(const Stage& st, std::size_t k) {
  for (const auto& e : st.out.index)
    if (e.terms.size() > 1)
      throw Error("stage " + std::to_string(k) + " writes " + comment_safe(st.out.str()) +
                  ": the CUDA backend needs one variable per output dimension (one thread per output element)");
}

// Whether the stage writes every element of `t` (else an intermediate is zeroed first, as the
// reference's buffers start zeroed).
bool covers(const Tensor& t, const Stage& st, const Op& view) {
  std::vector<std::string> seen;
  for (std::size_t d = 0; d < st.out.index.size(); ++d) {
    const auto v = st.out.index[d].as_single_var();
    if (!v || std::find(seen.begin(), seen.end(), *v) != seen.end()) return false;
    if (view.var(*v).extent != t.shape[d]) return false;
    seen.push_back(*v);
  }
  return true;
}

// The tensors stage `st` reads or writes, in op.tensors order then op.locals order, each once.
std::vector<const Tensor*> touched(const Op& op, const Stage& st) {
  std::vector<std::string> names{st.out.tensor};
  for_each_read(st.value, [&](const Access& a) { names.push_back(a.tensor); });
  std::vector<const Tensor*> r;
  for (const auto* list : {&op.tensors, &op.locals})
    for (const auto& t : *list)
      if (std::find(names.begin(), names.end(), t.name) != names.end()) r.push_back(&t);
  return r;
}

class StageEmitter : private tgen::CodeWriter {
 public:
  StageEmitter(const Op& op, std::string id) : op_(op), id_(std::move(id)), it_(fits_int(op) ? "int" : "long long") {}

  std::string source() {
    line("#include <cuda_fp16.h>");
    line("#include <cuda_runtime.h>");
    line("#include <math.h>");
    line("");
    for (std::size_t k = 0; k < op_.stages.size(); ++k) kernel(k);
    launchers();
    return out_.str();
  }

 private:
  std::string kernel_name(std::size_t k) const { return id_ + "_s" + std::to_string(k); }
  std::int64_t points(const Stage& st) const { return st.domain_points() / st.reduced_points(); }
  std::int64_t blocks(const Stage& st) const { return std::min(kMaxBlocks, (points(st) + kBlock - 1) / kBlock); }

  void kernel(std::size_t k) {
    const Stage& st = op_.stages[k];
    check_output_index(st, k);
    const Op view = stage_view(op_, st);
    std::string params;
    for (const Tensor* t : touched(op_, st)) {
      const bool out = t->name == st.out.tensor;
      params += (params.empty() ? "" : ", ") + std::string(out ? "" : "const ") + cuda::ctype(t->dtype) +
                "* __restrict__ " + t->name;
    }
    line("// stage " + std::to_string(k) + ": " + comment_safe(st.str()));
    open("extern \"C\" __global__ void __launch_bounds__(" + std::to_string(kBlock) + ") " + kernel_name(k) + "(" +
         params + ") {");
    auto as_it = [&](const char* v) { return "(" + it_ + ")" + v; };
    const std::string first = as_it("blockIdx.x") + " * " + as_it("blockDim.x") + " + " + as_it("threadIdx.x");
    open("for (" + it_ + " p_ = " + first + "; p_ < " + std::to_string(points(st)) + "; p_ += " + as_it("gridDim.x") +
         " * " + as_it("blockDim.x") + ") {");
    lines(tgen::decompose(view, spatial_of(st), "p_", it_));
    body(st, view);
    close();
    close();
    line("");
  }

  // The output element of the thread's point: its value, or its reduction over the loops of the
  // reduced variables (outermost first), then the store.
  void body(const Stage& st, const Op& view) {
    std::string skip_unless;
    const cgen::ReadPrinter read = [&](const Access& a) {
      const DType t = view.tensor(a.tensor).dtype;
      return cgen::ElementRead{cuda::to_float(t, a.tensor + "[" + tgen::flat_offset(view, a) + "]"),
                               tgen::read_guard(view, a)};
    };
    const std::string value = cgen::stage_value_c(st.value, st.reduce, cuda_math(), read, skip_unless);
    const DType out_t = view.tensor(st.out.tensor).dtype;
    const std::string dst = st.out.tensor + "[" + tgen::flat_offset(view, st.out) + "]";
    if (st.reduce == Reduce::none) {
      line(dst + " = " + cuda::from_float(out_t, value) + ";");
      return;
    }
    line("float acc_ = " + cgen::c_float(reduce_identity(st.reduce)) + ";");
    int loops = 0;
    for (const auto& v : st.vars) {
      if (!v.reduction) continue;
      const std::string c = tgen::cvar(v.name);
      open("for (" + it_ + " " + c + " = 0; " + c + " < " + std::to_string(v.extent) + "; ++" + c + ") {");
      ++loops;
    }
    const std::string update = cgen::stage_combine_c(st.reduce, "acc_", value, cuda_math());
    line(skip_unless.empty() ? update : "if (" + skip_unless + ") " + update);
    for (int i = 0; i < loops; ++i) close();
    if (st.reduce == Reduce::mean)
      line("acc_ = acc_ / " + cgen::c_float(static_cast<double>(st.reduced_points())) + ";");
    line(dst + " = " + cuda::from_float(out_t, "acc_") + ";");
  }

  std::int64_t local_offset(std::size_t i) const {
    std::int64_t off = 0;
    for (std::size_t j = 0; j < i; ++j) {
      const auto bytes = op_.locals[j].numel() * static_cast<std::int64_t>(dtype_size(op_.locals[j].dtype));
      off += (bytes + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
    }
    return off;
  }

  // The pointer expression of a tensor inside the launcher.
  std::string pointer(const Tensor& t) const {
    const int i = op_.tensor_index(t.name);
    if (i >= 0) return "(" + cuda::ctype(t.dtype) + "*)buffers[" + std::to_string(i) + "]";
    for (std::size_t j = 0; j < op_.locals.size(); ++j)
      if (op_.locals[j].name == t.name) return "local" + std::to_string(j) + "_";
    throw Error("internal: stage tensor '" + comment_safe(t.name) + "' is neither an argument nor an intermediate");
  }

  void launchers() {
    const std::int64_t ws = local_offset(op_.locals.size());
    line("extern \"C\" size_t " + id_ + "_workspace_bytes(void) { return " + std::to_string(ws) + "; }");
    line("");
    open("extern \"C\" cudaError_t " + id_ + "_launch_workspace(void* const* buffers, void* workspace, " +
         "cudaStream_t stream) {");
    if (!op_.locals.empty()) line("char* ws_ = (char*)workspace;");
    line("cudaError_t e_ = cudaSuccess;");
    for (std::size_t j = 0; j < op_.locals.size(); ++j) {
      const Tensor& t = op_.locals[j];
      line(cuda::ctype(t.dtype) + "* local" + std::to_string(j) + "_ = (" + cuda::ctype(t.dtype) + "*)(ws_ + " +
           std::to_string(local_offset(j)) + ");  // " + comment_safe(t.name));
    }
    for (std::size_t k = 0; k < op_.stages.size(); ++k) {
      const Stage& st = op_.stages[k];
      const Tensor& out = *op_.find_tensor(st.out.tensor);
      if (op_.tensor_index(out.name) < 0 && !covers(out, st, stage_view(op_, st)))
        line("if ((e_ = cudaMemsetAsync(" + pointer(out) + ", 0, " +
             std::to_string(out.numel() * static_cast<std::int64_t>(dtype_size(out.dtype))) +
             ", stream)) != cudaSuccess) return e_;");
      std::string args;
      for (const Tensor* t : touched(op_, st)) args += (args.empty() ? "" : ", ") + pointer(*t);
      line(kernel_name(k) + "<<<" + std::to_string(blocks(st)) + ", " + std::to_string(kBlock) + ", 0, stream>>>(" +
           args + ");");
      line("if ((e_ = cudaGetLastError()) != cudaSuccess) return e_;");
    }
    line("return cudaSuccess;");
    close();
    line("");
    open("extern \"C\" cudaError_t " + id_ + "_launch(void* const* buffers, cudaStream_t stream) {");
    if (ws == 0) {
      line("return " + id_ + "_launch_workspace(buffers, nullptr, stream);");
    } else {
      line("void* ws_ = nullptr;");
      line("cudaError_t e_ = cudaMallocAsync(&ws_, " + std::to_string(ws) + ", stream);");
      line("if (e_ != cudaSuccess) return e_;");
      line("e_ = " + id_ + "_launch_workspace(buffers, ws_, stream);");
      line("const cudaError_t f_ = cudaFreeAsync(ws_, stream);");
      line("return e_ != cudaSuccess ? e_ : f_;");
    }
    close();
  }

  const Op& op_;
  std::string id_;
  std::string it_;
};

}  // namespace

std::string cuda_stage_kernel_name(const Op& op) {
  // As cuda_kernel_name: only a label the spec parser would accept, its characters mapped onto
  // identifier characters, cut so that the ID stays within kMaxNameLength.
  const bool labelled = !op.name.empty() && !label_problem(op.name);
  std::string s = "attune_";
  for (char c : (labelled ? op.name : std::string("op")).substr(0, 40))
    s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s + "_stages";
}

Artifact lower_cuda_stages(const Op& op, const CudaCodegenOptions& options) {
  if (!op.multi_stage()) throw Error("lower_cuda_stages: the op is a contraction (tensorize it: lower_cuda)");
  check_c_names(op);
  check_c_var_names(op);
  const std::string id = options.name.empty() ? cuda_stage_kernel_name(op) : options.name;
  if (!is_c_identifier(id)) throw Error("CUDA kernel name '" + comment_safe(id) + "' is not a C identifier");
  const std::string body = StageEmitter(op, id).source();
  Artifact a;
  a.language = "cuda";
  a.source = "// attune CUDA kernels " + id + ": a multi-stage op, one kernel per stage\n//\n" +
             c_comment_lines(print_spec(op), "// ") + "//\n" + body;
  a.entry = id + "_launch";
  a.flags = {"-O3", "-std=c++17"};
  return a;
}

}  // namespace attune
