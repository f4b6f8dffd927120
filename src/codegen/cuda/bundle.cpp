// Writing the GPU bundle folder (codegen/gpu_bundle.hpp).
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "codegen/codegen_cuda.hpp"
#include "codegen/gpu_bundle.hpp"
#include "ir/error.hpp"

namespace attune {

namespace {

void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) throw Error("cannot write " + p.string());
}

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n') c = ';';
  return s;
}

// A fresh id from `base`: base, base_2, base_3, ...
std::string unique_id(const std::string& base, const std::vector<std::string>& ids) {
  std::string id = base;
  for (int n = 2; std::find(ids.begin(), ids.end(), id) != ids.end(); ++n) id = base + "_" + std::to_string(n);
  return id;
}

// Seeds the stage ops' inputs: fixed, so that a bundle is the same every time it is written.
constexpr std::uint64_t kStageDataSeed = 2027;

}  // namespace

std::vector<std::string> write_gpu_bundle(const std::string& dir, const std::vector<TensorizePlan>& plans,
                                          const std::vector<Op>& stage_ops) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create " + dir + ": " + ec.message());
  std::vector<std::string> ids;
  std::string manifest = "# id | op spec | intrinsic | mapping (written by `attune gpu-bundle`)\n";
  for (const auto& p : plans) {
    const std::string id = unique_id(cuda_kernel_name(p), ids);
    CudaCodegenOptions o;
    o.name = id;
    write(fs::path(dir) / (id + ".cu"), lower_cuda(p, o).source);
    write(fs::path(dir) / (id + "_check.cu"), cuda_harness(p, id, id + ".cu"));
    manifest += id + " | " + one_line(print_spec(p.op)) + " | " + p.intrinsic.name + " | " +
                std::to_string(p.mapping_number) + "\n";
    ids.push_back(id);
  }
  for (const auto& op : stage_ops) {
    const std::string id = unique_id(cuda_stage_kernel_name(op), ids);
    CudaCodegenOptions o;
    o.name = id;
    write(fs::path(dir) / (id + ".cu"), lower_cuda_stages(op, o).source);
    write(fs::path(dir) / (id + ".data"), stage_check_data(op, kStageDataSeed));
    write(fs::path(dir) / (id + "_check.cu"), cuda_stage_harness(op, id, id + ".cu", id + ".data"));
    manifest += id + " | " + one_line(print_spec(op)) + " | cuda-stages | " + std::to_string(op.stages.size()) + "\n";
    ids.push_back(id);
  }
  write(fs::path(dir) / "kernels.txt", manifest);
  return ids;
}

}  // namespace attune
