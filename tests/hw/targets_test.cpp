// targets_test.cpp — the shipped target files load, name resolution, and the VTA config link.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "hw/target.hpp"
#include "ir/error.hpp"

namespace attune {
namespace {

namespace fs = std::filesystem;

TEST(Targets, EveryShippedTargetLoads) {
  std::vector<std::string> names = list_targets();
  for (const char* want : {"nvidia-h200", "vta", "x86-avx2", "x86-avx512"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  for (const auto& n : names) {
    SCOPED_TRACE(n);
    Target t = load_target(n);
    EXPECT_EQ(t.name, n);
    EXPECT_FALSE(t.intrinsics.empty());
    for (const auto& in : t.intrinsics) {
      EXPECT_EQ(in.memory.size(), in.compute.tensors.size()) << in.name;
      EXPECT_FALSE(in.emit_kind.empty()) << in.name;
    }
  }
}

TEST(Targets, AliasesResolveToShippedFiles) {
  // "cpu" and "host" follow the CPU: AVX-512 (F, VL, BW, DQ) where it has it, else AVX2.
  __builtin_cpu_init();
  const bool v4 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                  __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
  EXPECT_EQ(host_cpu_target(), v4 ? "x86-avx512" : "x86-avx2");
  EXPECT_EQ(load_target("cpu").name, host_cpu_target());
  EXPECT_EQ(load_target("host").name, host_cpu_target());
  EXPECT_EQ(cpu_vector_bits(load_target("host")), v4 ? 512 : 256);
  EXPECT_EQ(load_target("cuda").name, "nvidia-h200");
  EXPECT_EQ(load_target("vta").kind, TargetKind::vta);
  Target byPath = load_target(std::string(ATTUNE_SOURCE_DIR) + "/targets/x86-avx512.json");
  EXPECT_EQ(byPath.name, "x86-avx512");
}

TEST(Targets, HostAvx2Intrinsic) {
  Target t = load_target("x86-avx2");
  EXPECT_EQ(t.kind, TargetKind::cpu);
  EXPECT_EQ(t.vector_bits, 256);
  EXPECT_GE(t.cores, 1);
  EXPECT_EQ(t.compiler, "cc");
  const Intrinsic& fma = t.intrinsic("avx2_fma_f32");
  EXPECT_EQ(fma.shape_str(), "1x8x1");
  EXPECT_EQ(fma.emit_kind, "avx2_fma_bcast");
  EXPECT_EQ(fma.emit["lanes"], 8);
  EXPECT_EQ(fma.memory_of("A").layout, Layout::broadcast);
  EXPECT_TRUE(fma.memory_of("B").unit_stride_inner);
  EXPECT_FALSE(fma.comment.empty());
}

TEST(Targets, Avx512AndVnni) {
  Target t = load_target("x86-avx512");
  EXPECT_EQ(t.intrinsic("avx512_fma_f32").shape_str(), "1x16x1");
  const Intrinsic& vnni = t.intrinsic("avx512_vnni_u8s8s32");
  EXPECT_EQ(vnni.shape_str(), "16x4");
  EXPECT_EQ(vnni.compute.tensor("A").dtype, DType::u8);
  EXPECT_EQ(vnni.compute.tensor("B").dtype, DType::i8);
  EXPECT_EQ(vnni.compute.tensor("C").dtype, DType::i32);
  EXPECT_EQ(vnni.memory_of("B").layout, Layout::vnni);
}

TEST(Targets, TensorCoreIntrinsics) {
  Target t = load_target("nvidia-h200");
  EXPECT_EQ(t.kind, TargetKind::cuda);
  EXPECT_EQ(t.arch, "sm_90");
  EXPECT_EQ(t.intrinsic("mma_m16n8k16_f16f32").shape_str(), "16x8x16");
  EXPECT_EQ(t.intrinsic("mma_m16n8k16_f16f32").emit["ptx"], "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  EXPECT_EQ(t.intrinsic("wmma_16x16x16_f16f32").shape_str(), "16x16x16");
  EXPECT_EQ(t.intrinsic("wmma_32x8x16_f16f32").shape_str(), "32x8x16");
  EXPECT_EQ(t.intrinsic("wmma_8x32x16_f16f32").shape_str(), "8x32x16");
  EXPECT_EQ(t.intrinsic("wmma_16x16x16_s8s32").compute.tensor("C").dtype, DType::i32);
  EXPECT_EQ(t.intrinsic("wmma_16x16x16_f16f32").memory_of("A").scope, MemScope::fragment);
  ASSERT_EQ(t.intrinsic("wmma_16x16x16_f16f32").memory_of("A").staging.size(), 2u);
  EXPECT_THROW(t.intrinsic("wgmma"), Error);
}

TEST(Targets, VtaShapeComesFromItsConfig) {
  Target t = load_target("vta");
  const Intrinsic& g = t.intrinsic("vta_gemm");
  EXPECT_EQ(g.params.at("BATCH"), 1);
  EXPECT_EQ(g.params.at("BLOCK_IN"), 16);
  EXPECT_EQ(g.params.at("BLOCK_OUT"), 16);
  EXPECT_EQ(g.shape_str(), "1x16x16");
  if (fs::exists(std::string(ATTUNE_SOURCE_DIR) + "/targets/vta/default.json")) {
    EXPECT_NE(g.config_path.find("vta/default.json"), std::string::npos);
  }
}

// A private targets dir: a config with other values wins; without one the defaults stand in.
class TargetsDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("attune_hw_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    fs::copy_file(std::string(ATTUNE_SOURCE_DIR) + "/targets/vta.json", dir_ / "myvta.json",
                  fs::copy_options::overwrite_existing);
    setenv("ATTUNE_TARGETS_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("ATTUNE_TARGETS_DIR");
    fs::remove_all(dir_);
  }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel) << text;
  }
  fs::path dir_;
};

TEST_F(TargetsDir, InlineDefaultsWhenConfigMissing) {
  Target t = load_target("myvta");
  EXPECT_EQ(t.intrinsic("vta_gemm").shape_str(), "1x16x16");
  EXPECT_EQ(t.intrinsic("vta_gemm").config_path, "");
  std::vector<std::string> names = list_targets();
  EXPECT_NE(std::find(names.begin(), names.end(), "myvta"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "x86-avx2"), names.end());
}

TEST_F(TargetsDir, LogSpellingsAndSharedBlock) {
  write("vta/default.json", R"({"LOG_BATCH": 1, "LOG_BLOCK": 5})");
  const Intrinsic g = load_target("myvta").intrinsic("vta_gemm");
  EXPECT_EQ(g.shape_str(), "2x32x32");
  EXPECT_EQ(g.compute.tensor("B").shape, (std::vector<std::int64_t>{32, 32}));
}

TEST_F(TargetsDir, LowerCaseSpellings) {
  write("vta/default.json", R"({"core": {"batch": 4, "block_in": 8, "block_out": 16}})");
  EXPECT_EQ(load_target("myvta").intrinsic("vta_gemm").shape_str(), "4x16x8");
}

TEST_F(TargetsDir, BadConfigNamesTheConfigFile) {
  write("vta/default.json", R"({"LOG_BATCH": "zero"})");
  std::string cfg = (dir_ / "vta/default.json").lexically_normal().string();
  try {
    load_target("myvta");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), cfg + ": LOG_BATCH: expected an integer, got \"zero\"");
  }
}

}  // namespace
}  // namespace attune
