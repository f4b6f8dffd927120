// The GPU bundle's host harness (codegen/gpu_bundle.hpp): one self-contained .cu per kernel that
// checks it against a reference loop generated from the op spec and times it beside the vendor
// library. Only the CUDA toolkit is needed to build it (cuDNN optionally).
#include <sstream>

#include "codegen/c_safe.hpp"
#include "codegen/codegen_cuda.hpp"
#include "codegen/cuda/cuda_types.hpp"
#include "codegen/cuda/vendor_match.hpp"
#include "codegen/gpu_bundle.hpp"
#include "codegen/tensorize/index_c.hpp"
#include "ir/error.hpp"
#include "ir/names.hpp"

namespace attune {

namespace {

using cuda::ctype;
using tgen::cvar;

// Shared with the multi-stage harness (cuda/stage_harness.cpp) through cuda::harness_prelude().
const char* kPrelude = R"(#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#ifdef ATTUNE_HAVE_CUDNN
#include <cudnn.h>
#endif

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));   \
      std::exit(2);                                                                      \
    }                                                                                    \
  } while (0)

inline double to_d(float x) { return x; }
inline double to_d(__half x) { return static_cast<double>(__half2float(x)); }
inline double to_d(signed char x) { return x; }
inline double to_d(unsigned char x) { return x; }
inline double to_d(int x) { return x; }
// The ranges attune's Buffer::fill_random uses: small integers keep int32 sums exact.
inline void fill(float& d, std::mt19937& g) { d = std::uniform_real_distribution<float>(-1, 1)(g); }
inline void fill(__half& d, std::mt19937& g) { d = __float2half(std::uniform_real_distribution<float>(-1, 1)(g)); }
inline void fill(signed char& d, std::mt19937& g) { d = (signed char)std::uniform_int_distribution<int>(-8, 7)(g); }
inline void fill(unsigned char& d, std::mt19937& g) { d = (unsigned char)std::uniform_int_distribution<int>(0, 15)(g); }
inline void fill(int& d, std::mt19937& g) { d = std::uniform_int_distribution<int>(-64, 63)(g); }

// Milliseconds per call of f(): a few warm-up calls, then enough calls for about 200 ms.
template <class F>
static double time_ms(F f) {
  for (int i = 0; i < 3; ++i) f();
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  f();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float one = 0;
  CK(cudaEventElapsedTime(&one, a, b));
  int iters = one > 0 ? static_cast<int>(200.0 / one) : 1000;
  iters = iters < 5 ? 5 : iters > 2000 ? 2000 : iters;
  CK(cudaEventRecord(a));
  for (int i = 0; i < iters; ++i) f();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float total = 0;
  CK(cudaEventElapsedTime(&total, a, b));
  CK(cudaGetLastError());
  return total / iters;
}
)";

class Harness {
 public:
  Harness(const TensorizePlan& p, std::string id) : p_(p), op_(p.op), id_(std::move(id)) {}

  std::string source(const std::string& kernel_file) {
    os_ << "// attune GPU check harness for " << id_ << " (generated; see src/codegen/gpu_bundle.hpp)\n";
    os_ << kPrelude << "\n#include \"" << kernel_file << "\"\n\n";
    reference();
    main_fn();
    return os_.str();
  }

 private:
  std::string input_params() const {
    std::string s;
    for (const auto& t : op_.tensors)
      if (t.name != op_.output.tensor)
        s += (s.empty() ? "" : ", ") + std::string("const ") + ctype(t.dtype) + "* " + t.name;
    return s;
  }
  std::string input_args() const {
    std::string s;
    for (const auto& t : op_.tensors)
      if (t.name != op_.output.tensor) s += (s.empty() ? "" : ", ") + std::string("h_") + t.name + ".data()";
    return s;
  }

  // The op's definition for one output element: a loop over the reduction variables.
  void reference() {
    os_ << "// " << comment_safe(op_.output.str()) << " for one point of the spatial variables (from the spec).\n";
    os_ << "static double reference_at(" << input_params();
    for (const auto& v : op_.spatial_vars()) os_ << ", long long " << cvar(v);
    os_ << ") {\n  double s_ = 0;\n";
    std::string ind = "  ";
    for (const auto& v : op_.reduction_vars()) {
      os_ << ind << "for (long long " << cvar(v) << " = 0; " << cvar(v) << " < " << op_.var(v).extent << "; ++"
          << cvar(v) << ")\n";
      ind += "  ";
    }
    os_ << ind << "do {\n" << ind << "  double x_ = 1;\n";
    for (const auto& in : op_.inputs) {
      const std::string g = tgen::read_guard(op_, in);
      if (!g.empty()) os_ << ind << "  if (!(" << g << ")) break;\n";
      os_ << ind << "  x_ *= to_d(" << in.tensor << "[" << tgen::flat_offset(op_, in) << "]);\n";
    }
    os_ << ind << "  s_ += x_;\n" << ind << "} while (0);\n";
    os_ << "  return " << tgen::apply_epilogue(op_, "s_", "to_d") << ";\n}\n\n";
  }

  void main_fn() {
    const bool is_int = !is_float(op_.accum_dtype());
    os_ << "int main() {\n  std::mt19937 gen(1234);\n";
    for (const auto& t : op_.tensors) {
      const bool out = t.name == op_.output.tensor;
      os_ << "  std::vector<" << ctype(t.dtype) << "> h_" << t.name << "(" << t.numel() << ");\n";
      if (!out) os_ << "  for (auto& x : h_" << t.name << ") fill(x, gen);\n";
      os_ << "  " << ctype(t.dtype) << "* d_" << t.name << " = nullptr;\n";
      os_ << "  CK(cudaMalloc(&d_" << t.name << ", h_" << t.name << ".size() * sizeof(h_" << t.name << "[0])));\n";
      if (out)
        os_ << "  CK(cudaMemset(d_" << t.name << ", 0, h_" << t.name << ".size() * sizeof(h_" << t.name << "[0])));\n";
      else
        os_ << "  CK(cudaMemcpy(d_" << t.name << ", h_" << t.name << ".data(), h_" << t.name << ".size() * sizeof(h_"
            << t.name << "[0]), cudaMemcpyHostToDevice));\n";
    }
    os_ << "  void* bufs[] = {";
    for (std::size_t i = 0; i < op_.tensors.size(); ++i) os_ << (i ? ", " : "") << "d_" << op_.tensors[i].name;
    os_ << "};\n";
    const std::string C = op_.output.tensor;
    os_ << "  " << id_ << "_launch(bufs, 0);\n  CK(cudaGetLastError());\n  CK(cudaDeviceSynchronize());\n";
    os_ << "  CK(cudaMemcpy(h_" << C << ".data(), d_" << C << ", h_" << C << ".size() * sizeof(h_" << C
        << "[0]), cudaMemcpyDeviceToHost));\n\n";
    // Sampled verification: the first and last points, then random ones.
    os_ << "  // Check sampled output elements against the reference loop.\n";
    os_ << "  double max_err = 0, max_ref = 0;\n  std::mt19937 pick(99);\n";
    os_ << "  for (int s = 0; s < 4096; ++s) {\n";
    for (const auto& v : op_.spatial_vars()) {
      const auto e = op_.var(v).extent;
      os_ << "    const long long " << cvar(v) << " = s == 0 ? 0 : s == 1 ? " << e - 1
          << " : std::uniform_int_distribution<long long>(0, " << e - 1 << ")(pick);\n";
    }
    os_ << "    const double want = reference_at(" << input_args();
    for (const auto& v : op_.spatial_vars()) os_ << ", " << cvar(v);
    os_ << ");\n";
    os_ << "    const double got = to_d(h_" << C << "[" << tgen::flat_offset(op_, op_.output) << "]);\n";
    os_ << "    max_err = std::fmax(max_err, std::fabs(got - want));\n";
    os_ << "    max_ref = std::fmax(max_ref, std::fabs(want));\n  }\n";
    os_ << "  const double rel_err = max_err / (max_ref > 1 ? max_ref : 1);\n";
    // f16 products are exact in f32; the tolerance covers accumulation order on Tensor Cores.
    os_ << "  const bool ok = " << (is_int ? "max_err == 0" : "rel_err <= 1e-2") << ";\n\n";
    os_ << "  const double flops = " << op_.flops() << ";\n";
    os_ << "  const double ms = time_ms([&] { " << id_ << "_launch(bufs, 0); });\n";
    os_ << "  const char* vendor = \"-\";\n  double vendor_ms = 0;\n";
    vendor();
    os_ << "  std::printf(\"RESULT|%s|%s|%d|%.4f|%.2f|%s|%.4f|%.2f|%.3g|%s\\n\", "
        << c_string_literal(op_.name.empty() ? "op" : op_.name) << ", " << c_string_literal(p_.intrinsic.name) << ", "
        << p_.mapping_number
        << ", ms, flops / (ms * 1e-3) / 1e12, vendor, vendor_ms, vendor_ms > 0 ? flops / (vendor_ms * 1e-3) / 1e12 : "
           "0.0,"
        << " rel_err, ok ? \"OK\" : \"FAIL\");\n";
    os_ << "  return ok ? 0 : 1;\n}\n";
  }

  void vendor() {
    const std::string routine = vendor_routine(op_);
    const bool is_int = !is_float(op_.accum_dtype());
    if (routine == "cublas") {
      const auto g = *cuda::match_gemm(op_);
      const std::string A = op_.inputs[0].tensor, B = op_.inputs[1].tensor, C = op_.output.tensor;
      const std::string in_t = is_int ? "CUDA_R_8I" : "CUDA_R_16F", out_t = is_int ? "CUDA_R_32I" : "CUDA_R_32F";
      const std::string comp = is_int ? "CUBLAS_COMPUTE_32I" : "CUBLAS_COMPUTE_32F";
      const std::string scal = is_int ? "int" : "float";
      os_ << "  {  // cuBLAS on the same shapes: row-major C = A B is column-major C^T = B^T A^T\n";
      os_ << "    cublasHandle_t h;\n    if (cublasCreate(&h) == CUBLAS_STATUS_SUCCESS) {\n";
      os_ << "      void* d_vendor = nullptr;\n      CK(cudaMalloc(&d_vendor, h_" << C << ".size() * sizeof(h_" << C
          << "[0])));\n";
      os_ << "      const " << scal << " alpha = 1, beta = 0;\n";
      os_ << "      auto run = [&] { return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, " << g.n << ", " << g.m << ", "
          << g.k << ", &alpha, d_" << B << ", " << in_t << ", " << g.n << ", d_" << A << ", " << in_t << ", " << g.k
          << ", &beta, d_vendor, " << out_t << ", " << g.n << ", " << comp << ", CUBLAS_GEMM_DEFAULT); };\n";
      os_ << "      if (run() == CUBLAS_STATUS_SUCCESS) {\n        vendor = \"cuBLAS\";\n"
             "        vendor_ms = time_ms([&] { run(); });\n      }\n";
      os_ << "      CK(cudaFree(d_vendor));\n      cublasDestroy(h);\n    }\n  }\n";
    } else if (routine == "cudnn") {
      const auto c = *cuda::match_conv2d(op_);
      const std::string I = op_.inputs[0].tensor, W = op_.inputs[1].tensor;
      const std::string fmt = c.nhwc ? "CUDNN_TENSOR_NHWC" : "CUDNN_TENSOR_NCHW";
      os_ << "#ifdef ATTUNE_HAVE_CUDNN\n";
      os_ << "  {  // cuDNN on the same shapes (f16 in and out, f32 compute; timing only)\n";
      os_ << "    cudnnHandle_t h;\n    if (cudnnCreate(&h) == CUDNN_STATUS_SUCCESS) {\n";
      os_ << "      cudnnTensorDescriptor_t xd, yd;\n      cudnnFilterDescriptor_t wd;\n"
             "      cudnnConvolutionDescriptor_t cd;\n";
      os_ << "      cudnnCreateTensorDescriptor(&xd);\n      cudnnCreateTensorDescriptor(&yd);\n"
             "      cudnnCreateFilterDescriptor(&wd);\n      cudnnCreateConvolutionDescriptor(&cd);\n";
      os_ << "      cudnnSetTensor4dDescriptor(xd, " << fmt << ", CUDNN_DATA_HALF, " << c.n << ", " << c.c << ", "
          << c.h << ", " << c.w << ");\n";
      os_ << "      cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_HALF, " << fmt << ", " << c.k << ", " << c.c << ", "
          << c.r << ", " << c.s << ");\n";
      os_ << "      cudnnSetConvolution2dDescriptor(cd, " << c.pad_h << ", " << c.pad_w << ", " << c.stride_h << ", "
          << c.stride_w << ", " << c.dil_h << ", " << c.dil_w << ", CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);\n";
      os_ << "      cudnnSetConvolutionMathType(cd, CUDNN_TENSOR_OP_MATH);\n";
      os_ << "      int on, oc, oh, ow;\n      cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &on, &oc, &oh, "
             "&ow);\n";
      os_ << "      cudnnSetTensor4dDescriptor(yd, " << fmt << ", CUDNN_DATA_HALF, on, oc, oh, ow);\n";
      os_ << "      cudnnConvolutionFwdAlgoPerf_t perf[8];\n      int found = 0;\n";
      os_ << "      cudnnGetConvolutionForwardAlgorithm_v7(h, xd, wd, cd, yd, 8, &found, perf);\n";
      os_ << "      size_t ws = 0;\n      void* d_ws = nullptr;\n      void* d_y = nullptr;\n";
      os_ << "      if (found > 0 && cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, perf[0].algo, &ws) == "
             "CUDNN_STATUS_SUCCESS) {\n";
      os_ << "        if (ws) CK(cudaMalloc(&d_ws, ws));\n";
      os_ << "        CK(cudaMalloc(&d_y, (size_t)on * oc * oh * ow * sizeof(__half)));\n";
      os_ << "        const float alpha = 1, beta = 0;\n";
      os_ << "        auto run = [&] { return cudnnConvolutionForward(h, &alpha, xd, d_" << I << ", wd, d_" << W
          << ", cd, perf[0].algo, d_ws, ws, &beta, yd, d_y); };\n";
      os_ << "        if (run() == CUDNN_STATUS_SUCCESS) {\n          vendor = \"cuDNN\";\n"
             "          vendor_ms = time_ms([&] { run(); });\n        }\n";
      os_ << "        if (d_ws) CK(cudaFree(d_ws));\n        CK(cudaFree(d_y));\n      }\n";
      os_ << "      cudnnDestroy(h);\n    }\n  }\n#endif\n";
    }
  }

  const TensorizePlan& p_;
  const Op& op_;
  std::string id_;
  std::ostringstream os_;
};

}  // namespace

const char* cuda::harness_prelude() { return kPrelude; }

std::string vendor_routine(const Op& op) {
  if (op.inputs.empty()) return "";
  const DType in = op.tensor(op.inputs[0].tensor).dtype;
  if ((in == DType::f16 || in == DType::i8) && cuda::match_gemm(op)) return "cublas";
  if (in == DType::f16 && cuda::match_conv2d(op)) return "cudnn";
  return "";
}

std::string cuda_harness(const TensorizePlan& plan, const std::string& id, const std::string& kernel_file) {
  check_c_names(plan.op);
  if (!is_c_identifier(id)) throw Error("CUDA kernel name '" + comment_safe(id) + "' is not a C identifier");
  // An #include's file name takes no escapes: accept only names that need none.
  const bool plain_file =
      !kernel_file.empty() &&
      kernel_file.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/") ==
          std::string::npos;
  if (!plain_file) throw Error("kernel file name '" + comment_safe(kernel_file) + "' cannot be #included");
  return Harness(plan, id).source(kernel_file);
}

}  // namespace attune
