// cuda/stage_harness.cpp — the GPU bundle's harness for multi-stage ops (codegen/gpu_bundle.hpp).
//
// Why not harness.cpp's: that one generates a reference loop for one contraction statement; a
// chain of stages with intermediates, skipped points and math would need a second evaluator in
// the harness. Instead the bundle writer runs attune's own reference (stage_evaluator.cpp) on
// seeded random inputs and stores inputs and expected output beside the kernel (<id>.data, the
// op's tensors in order, raw bytes of their dtypes). The harness reads them, runs ID_launch,
// compares every output element and times the launch (workspace allocation included).
#include <sstream>

#include "codegen/c_safe.hpp"
#include "codegen/cuda/cuda_types.hpp"
#include "codegen/gpu_bundle.hpp"
#include "ir/buffer.hpp"
#include "ir/error.hpp"
#include "ir/evaluator.hpp"
#include "ir/names.hpp"

namespace attune {

namespace {

using cuda::ctype;

// A file name that needs no escaping in an #include or a string literal.
bool plain_file_name(const std::string& f) {
  return !f.empty() &&
         f.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == std::string::npos;
}

class StageHarness {
 public:
  StageHarness(const Op& op, std::string id) : op_(op), id_(std::move(id)) {}

  std::string source(const std::string& kernel_file, const std::string& data_file) {
    os_ << "// attune GPU check harness for " << id_ << " (generated; see src/codegen/gpu_bundle.hpp)\n";
    os_ << cuda::harness_prelude() << "#include <string>\n\n#include \"" << kernel_file << "\"\n\n";
    os_ << "int main(int argc, char** argv) {\n";
    read_data(data_file);
    run_and_compare();
    report();
    return os_.str();
  }

 private:
  std::string out_name() const { return op_.output.tensor; }

  // Host vectors from the data file: every tensor in op order; the output's slot is `want_`.
  void read_data(const std::string& data_file) {
    os_ << "  // Inputs and the reference evaluator's output, written by `attune gpu-bundle`.\n";
    os_ << "  const std::string path_ = std::string(argc > 1 ? argv[1] : \".\") + \"/\" + "
        << c_string_literal(data_file) << ";\n";
    os_ << "  FILE* f_ = std::fopen(path_.c_str(), \"rb\");\n";
    os_ << "  if (!f_) {\n    std::fprintf(stderr, \"cannot open %s\\n\", path_.c_str());\n    return 2;\n  }\n";
    os_ << "  bool read_ok_ = true;\n";
    for (const auto& t : op_.tensors) {
      const std::string h = t.name == out_name() ? "want_" : "h_" + t.name;
      os_ << "  std::vector<" << ctype(t.dtype) << "> " << h << "(" << t.numel() << ");\n";
      os_ << "  read_ok_ = read_ok_ && std::fread(" << h << ".data(), sizeof(" << h << "[0]), " << h
          << ".size(), f_) == " << h << ".size();\n";
    }
    os_ << "  std::fclose(f_);\n";
    os_ << "  if (!read_ok_) {\n    std::fprintf(stderr, \"%s is too short\\n\", path_.c_str());\n    return 2;\n  }\n";
  }

  void run_and_compare() {
    const std::string C = out_name();
    for (const auto& t : op_.tensors) {
      const std::string h = t.name == C ? "want_" : "h_" + t.name, bytes = h + ".size() * sizeof(" + h + "[0])";
      os_ << "  " << ctype(t.dtype) << "* d_" << t.name << " = nullptr;\n";
      os_ << "  CK(cudaMalloc(&d_" << t.name << ", " << bytes << "));\n";
      if (t.name == C)  // the reference's output buffer starts zeroed too
        os_ << "  CK(cudaMemset(d_" << t.name << ", 0, " << bytes << "));\n";
      else
        os_ << "  CK(cudaMemcpy(d_" << t.name << ", " << h << ".data(), " << bytes << ", cudaMemcpyHostToDevice));\n";
    }
    os_ << "  void* bufs[] = {";
    for (std::size_t i = 0; i < op_.tensors.size(); ++i) os_ << (i ? ", " : "") << "d_" << op_.tensors[i].name;
    os_ << "};\n";
    os_ << "  CK(" << id_ << "_launch(bufs, 0));\n  CK(cudaDeviceSynchronize());\n";
    os_ << "  std::vector<" << ctype(op_.tensor(C).dtype) << "> got_(want_.size());\n";
    os_ << "  CK(cudaMemcpy(got_.data(), d_" << C << ", got_.size() * sizeof(got_[0]), cudaMemcpyDeviceToHost));\n\n";
    os_ << "  // Every element; a NaN or inf where the reference has a number is an infinite error.\n";
    os_ << "  double max_err = 0, max_ref = 0;\n";
    os_ << "  for (size_t i = 0; i < got_.size(); ++i) {\n";
    os_ << "    const double want = to_d(want_[i]), got = to_d(got_[i]);\n";
    os_ << "    double err = want == got ? 0.0 : std::fabs(got - want);\n";
    os_ << "    if (std::isnan(err)) err = INFINITY;\n";
    os_ << "    max_err = err > max_err ? err : max_err;\n";
    os_ << "    if (std::isfinite(want)) max_ref = std::fmax(max_ref, std::fabs(want));\n  }\n";
    os_ << "  const double rel_err = max_err / (max_ref > 1e-30 ? max_ref : 1e-30);\n";
    // float math (expf, rsqrtf: a few ulp) against the evaluator's double; integers: the float
    // accumulation may truncate one step off the double one.
    os_ << "  const bool ok = " << (is_float(op_.tensor(C).dtype) ? "rel_err <= 1e-3" : "max_err <= 1") << ";\n\n";
  }

  void report() {
    os_ << "  const double flops = " << op_.flops() << ";\n";
    os_ << "  const double ms = time_ms([&] { " << id_ << "_launch(bufs, 0); });\n";
    for (const auto& t : op_.tensors) os_ << "  CK(cudaFree(d_" << t.name << "));\n";
    os_ << "  std::printf(\"RESULT|%s|%s|%d|%.4f|%.2f|%s|%.4f|%.2f|%.3g|%s\\n\", "
        << c_string_literal(op_.name.empty() || label_problem(op_.name) ? "op" : op_.name) << ", \"cuda-stages\", "
        << op_.stages.size()
        << ", ms, flops / (ms * 1e-3) / 1e12, \"-\", 0.0, 0.0, rel_err, ok ? \"OK\" : \"FAIL\");\n";
    os_ << "  return ok ? 0 : 1;\n}\n";
  }

  const Op& op_;
  std::string id_;
  std::ostringstream os_;
};

}  // namespace

std::string stage_check_data(const Op& op, std::uint64_t seed) {
  if (!op.multi_stage()) throw Error("stage_check_data: the op is a contraction");
  std::vector<Buffer> bufs = make_buffers(op, seed);
  evaluate_stages(op, bufs);
  std::string bytes;
  for (const auto& b : bufs) bytes.append(static_cast<const char*>(b.data()), b.bytes());
  return bytes;
}

std::string cuda_stage_harness(const Op& op, const std::string& id, const std::string& kernel_file,
                               const std::string& data_file) {
  if (!op.multi_stage()) throw Error("cuda_stage_harness: the op is a contraction (use cuda_harness)");
  check_c_names(op);
  if (!is_c_identifier(id)) throw Error("CUDA kernel name '" + comment_safe(id) + "' is not a C identifier");
  for (const auto* f : {&kernel_file, &data_file})
    if (!plain_file_name(*f)) throw Error("bundle file name '" + comment_safe(*f) + "' cannot be written into C");
  return StageHarness(op, id).source(kernel_file, data_file);
}

}  // namespace attune
