// Config files: the shipped targets, and errors that name the file and the field.
#include <gtest/gtest.h>

#include "ir/error.hpp"
#include "sim/vta_config.hpp"

namespace attune {
namespace {

std::string error_of(std::string_view text) {
  try {
    parse_vta_config(text, "t.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

constexpr const char* kBase = R"("LOG_INP_WIDTH": 3, "LOG_WGT_WIDTH": 3, "LOG_ACC_WIDTH": 5, "LOG_BATCH": 0,
  "LOG_BLOCK": 4, "LOG_UOP_BUFF_SIZE": 15, "LOG_INP_BUFF_SIZE": 15, "LOG_WGT_BUFF_SIZE": 18)";

TEST(VtaConfig, DefaultFileIsTheBuiltInDefault) {
  const VtaConfig f = load_vta_config(vta_target_path("default"));
  const VtaConfig d = default_vta_config();
  EXPECT_EQ(f.name, "default");
  EXPECT_EQ(f.batch(), 1u);
  EXPECT_EQ(f.block_in(), 16u);
  EXPECT_EQ(f.block_out(), 16u);
  EXPECT_EQ(f.uop_depth(), d.uop_depth());
  EXPECT_EQ(f.inp_depth(), 2048u);  // 32 KB of 16-byte tiles
  EXPECT_EQ(f.wgt_depth(), 1024u);  // 256 KB of 256-byte tiles
  EXPECT_EQ(f.acc_depth(), 2048u);  // 128 KB of 64-byte tiles
  EXPECT_EQ(f.uop_depth(), 8192u);  // 32 KB of 4-byte micro-ops
  EXPECT_EQ(f.timing.dram_bytes_per_cycle, d.timing.dram_bytes_per_cycle);
  EXPECT_EQ(f.timing.dram_latency_cycles, d.timing.dram_latency_cycles);
  EXPECT_EQ(f.timing.gemm_ii, 1u);
  EXPECT_EQ(f.timing.alu_ii, 2u);
  EXPECT_EQ(f.timing.alu_pipeline_cycles, d.timing.alu_pipeline_cycles);
}

TEST(VtaConfig, ExtendedDoublesEveryBuffer) {
  const VtaConfig e = load_vta_config(vta_target_path("extended"));
  const VtaConfig d = default_vta_config();
  EXPECT_EQ(e.name, "extended");
  EXPECT_EQ(e.uop_depth(), 2 * d.uop_depth());
  EXPECT_EQ(e.inp_depth(), 2 * d.inp_depth());
  EXPECT_EQ(e.wgt_depth(), 2 * d.wgt_depth());
  EXPECT_EQ(e.acc_depth(), 2 * d.acc_depth());
  EXPECT_EQ(e.block_in(), d.block_in());
}

TEST(VtaConfig, ErrorsNameFileAndField) {
  const std::string base = kBase;
  EXPECT_EQ(error_of("{" + base + R"(, "LOG_ACC_BUFF_SIZE": 17, "LOG_BTACH": 1})"),
            "t.json: field 'LOG_BTACH': unknown field");
  EXPECT_EQ(error_of("{" + base + "}"), "t.json: field 'LOG_ACC_BUFF_SIZE': missing");
  EXPECT_EQ(error_of("{" + base + R"(, "LOG_ACC_BUFF_SIZE": 99})"),
            "t.json: field 'LOG_ACC_BUFF_SIZE': expected an integer in [0, 26], got 99");
  EXPECT_EQ(error_of("{" + base + R"(, "LOG_ACC_BUFF_SIZE": "17"})"),
            "t.json: field 'LOG_ACC_BUFF_SIZE': expected an integer, got \"17\"");
  EXPECT_EQ(error_of("{" + base + R"(, "LOG_ACC_BUFF_SIZE": 17, "timing": {"gemm_ii": 0}})"),
            "t.json: field 'timing.gemm_ii': expected an integer in [1, 1048576], got 0");
  EXPECT_EQ(error_of("{" + base + R"(, "LOG_ACC_BUFF_SIZE": 17, "timing": {"gemm_iii": 2}})"),
            "t.json: field 'timing.gemm_iii': unknown field");
  EXPECT_EQ(error_of("{" + base + R"(, "LOG_ACC_BUFF_SIZE": 5})"),
            "t.json: field 'LOG_ACC_BUFF_SIZE': a buffer of 32 bytes cannot hold one entry of 64 bytes");
  EXPECT_EQ(error_of("{" + base + R"(, "LOG_ACC_BUFF_SIZE": 17, "LOG_BLOCK_IN": 4})"),
            "t.json: field 'LOG_BLOCK': give either LOG_BLOCK or LOG_BLOCK_IN and LOG_BLOCK_OUT, not both");
  EXPECT_EQ(error_of(R"({"LOG_INP_WIDTH": 4})"), "t.json: field 'LOG_INP_WIDTH': expected an integer in [3, 3], got 4");
  EXPECT_EQ(error_of("[1]"), "t.json: expected a JSON object");
  EXPECT_EQ(error_of("{").rfind("t.json: invalid JSON: ", 0), 0u);
}

TEST(VtaConfig, TimingOverridesAndMissingFile) {
  const VtaConfig c = parse_vta_config(
      "{" + std::string(kBase) + R"(, "LOG_ACC_BUFF_SIZE": 17, "timing": {"dram_bytes_per_cycle": 32, "alu_ii": 1}})",
      "t.json");
  EXPECT_EQ(c.timing.dram_bytes_per_cycle, 32u);
  EXPECT_EQ(c.timing.alu_ii, 1u);
  EXPECT_EQ(c.timing.gemm_ii, 1u);  // untouched default
  EXPECT_THROW(load_vta_config("/nonexistent/vta.json"), Error);
}

}  // namespace
}  // namespace attune
