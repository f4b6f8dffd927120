// cuda_kernel_features(): ML²Tuner's hidden features for CUDA candidates, read from ptxas's
// resource report (runtime.hpp). Registers and shared memory bound occupancy and spills cost
// local-memory traffic: what a model cannot see in the source.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>

#include "runtime/runtime.hpp"
#include "runtime/subprocess.hpp"

namespace attune {

std::string find_nvcc() {
  std::string p = runtime::find_program("nvcc");
  if (p.empty() && access("/usr/local/cuda/bin/nvcc", X_OK) == 0) p = "/usr/local/cuda/bin/nvcc";
  return p;
}

nlohmann::json cuda_kernel_features(const std::string& cu_path, const std::string& arch) {
  const std::string nvcc = find_nvcc();
  if (nvcc.empty()) return nlohmann::json::object();
  const auto obj = std::filesystem::temp_directory_path() / ("attune-ptxas-" + std::to_string(getpid()) + "-" +
                                                             std::to_string(std::hash<std::string>{}(cu_path)) + ".o");
  runtime::ProcessOptions po;
  po.timeout_s = 300;
  const auto r = runtime::run_process({nvcc, "-arch=" + arch, "-c", "-Xptxas", "-v", cu_path, "-o", obj.string()}, po);
  std::error_code ec;
  std::filesystem::remove(obj, ec);
  if (!r.exited_ok()) return nlohmann::json::object();

  // ptxas info    : Compiling entry function 'k' for 'sm_90'
  // ptxas info    : Used 40 registers, used 1 barriers, 8448 bytes smem, 400 bytes cmem[0]
  // ptxas info    : 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
  static const std::regex regs(R"(Used (\d+) registers)"), smem(R"((\d+) bytes smem)"),
      stack(R"((\d+) bytes stack frame)"), st(R"((\d+) bytes spill stores)"), ld(R"((\d+) bytes spill loads)"),
      entry(R"(Compiling entry function)");
  long v_regs = 0, v_smem = 0, v_stack = 0, v_st = 0, v_ld = 0, kernels = 0;
  std::istringstream in(r.out + "\n" + r.err);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, entry)) ++kernels;
    if (std::regex_search(line, m, regs)) v_regs = std::max(v_regs, std::stol(m[1]));
    if (std::regex_search(line, m, smem)) v_smem = std::max(v_smem, std::stol(m[1]));
    if (std::regex_search(line, m, stack)) v_stack = std::max(v_stack, std::stol(m[1]));
    if (std::regex_search(line, m, st)) v_st = std::max(v_st, std::stol(m[1]));
    if (std::regex_search(line, m, ld)) v_ld = std::max(v_ld, std::stol(m[1]));
  }
  if (kernels == 0) return nlohmann::json::object();
  return {{"registers", v_regs},       {"smem_bytes", v_smem},     {"stack_bytes", v_stack},
          {"spill_store_bytes", v_st}, {"spill_load_bytes", v_ld}, {"kernels", kernels}};
}

}  // namespace attune
