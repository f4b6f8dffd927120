// Loading and validating VTA config files (see sim/vta_config.hpp).
#include "sim/vta_config.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ir/error.hpp"
#include "ir/json_limits.hpp"
#include "ir/locations.hpp"

namespace attune {

namespace {

using nlohmann::json;

struct ShapeField {
  const char* key;
  int VtaConfig::*member;
  int lo, hi;
};

// The functional model computes int8 x int8 -> int32 exactly, so other widths are refused
// rather than silently simulated at the wrong precision. Size limits keep buffers allocatable.
constexpr ShapeField kShape[] = {
    {"LOG_INP_WIDTH", &VtaConfig::log_inp_width, 3, 3},
    {"LOG_WGT_WIDTH", &VtaConfig::log_wgt_width, 3, 3},
    {"LOG_ACC_WIDTH", &VtaConfig::log_acc_width, 5, 5},
    {"LOG_BATCH", &VtaConfig::log_batch, 0, 4},
    {"LOG_BLOCK_IN", &VtaConfig::log_block_in, 0, 6},
    {"LOG_BLOCK_OUT", &VtaConfig::log_block_out, 0, 6},
    {"LOG_UOP_BUFF_SIZE", &VtaConfig::log_uop_buff_size, 2, 24},
    {"LOG_INP_BUFF_SIZE", &VtaConfig::log_inp_buff_size, 0, 24},
    {"LOG_WGT_BUFF_SIZE", &VtaConfig::log_wgt_buff_size, 0, 26},
    {"LOG_ACC_BUFF_SIZE", &VtaConfig::log_acc_buff_size, 0, 26},
};

struct TimingField {
  const char* key;
  std::uint32_t VtaTiming::*member;
  std::int64_t lo;
};

// Upper bound for every timing constant: keeps cycle products far from 64-bit overflow.
constexpr std::int64_t kTimingMax = 1 << 20;

constexpr TimingField kTiming[] = {
    {"dram_bytes_per_cycle", &VtaTiming::dram_bytes_per_cycle, 1},
    {"dram_latency_cycles", &VtaTiming::dram_latency_cycles, 0},
    {"dma_row_overhead_cycles", &VtaTiming::dma_row_overhead_cycles, 0},
    {"pad_cycles_per_block", &VtaTiming::pad_cycles_per_block, 0},
    {"insn_issue_cycles", &VtaTiming::insn_issue_cycles, 0},
    {"gemm_ii", &VtaTiming::gemm_ii, 1},
    {"gemm_pipeline_cycles", &VtaTiming::gemm_pipeline_cycles, 0},
    {"alu_ii", &VtaTiming::alu_ii, 1},
    {"alu_pipeline_cycles", &VtaTiming::alu_pipeline_cycles, 0},
};

std::size_t shape_index(std::string_view key) {
  std::size_t i = 0;
  while (i < std::size(kShape) && key != kShape[i].key) ++i;
  return i;  // std::size(kShape) when unknown
}

[[noreturn]] void fail(std::string_view source, std::string_view field, const std::string& why) {
  std::ostringstream os;
  os << source << ": field '" << field << "': " << why;
  throw Error(os.str());
}

void check_range(std::string_view source, std::string_view field, std::int64_t v, std::int64_t lo, std::int64_t hi) {
  if (v >= lo && v <= hi) return;
  std::ostringstream os;
  os << "expected an integer in [" << lo << ", " << hi << "], got " << v;
  fail(source, field, os.str());
}

std::int64_t read_int(const json& v, std::string_view source, std::string_view field) {
  if (!v.is_number_integer()) fail(source, field, "expected an integer, got " + v.dump());
  return v.get<std::int64_t>();
}

void parse_timing(const json& t, std::string_view source, VtaTiming& out) {
  if (!t.is_object()) fail(source, "timing", "expected an object, got " + t.dump());
  for (const auto& [key, value] : t.items()) {
    const TimingField* f = nullptr;
    for (const auto& cand : kTiming)
      if (key == cand.key) f = &cand;
    // A typo would silently keep a default; refuse unknown keys instead.
    if (f == nullptr) fail(source, "timing." + key, "unknown field");
    const std::int64_t v = read_int(value, source, "timing." + key);
    check_range(source, "timing." + key, v, f->lo, kTimingMax);
    out.*(f->member) = static_cast<std::uint32_t>(v);
  }
}

}  // namespace

VtaConfig default_vta_config() { return VtaConfig{}; }

void validate_vta_config(const VtaConfig& c, std::string_view source) {
  for (const auto& f : kShape) check_range(source, f.key, c.*(f.member), f.lo, f.hi);
  for (const auto& f : kTiming)
    check_range(source, std::string("timing.") + f.key, c.timing.*(f.member), f.lo, kTimingMax);
  // Each buffer must hold at least one entry (one whole tile).
  auto need_entry = [&](const char* field, int log_size, std::uint32_t elem) {
    if ((std::uint64_t(1) << log_size) >= elem) return;
    std::ostringstream os;
    os << "a buffer of " << (std::uint64_t(1) << log_size) << " bytes cannot hold one entry of " << elem << " bytes";
    fail(source, field, os.str());
  };
  need_entry("LOG_INP_BUFF_SIZE", c.log_inp_buff_size, c.inp_elem_bytes());
  need_entry("LOG_WGT_BUFF_SIZE", c.log_wgt_buff_size, c.wgt_elem_bytes());
  need_entry("LOG_ACC_BUFF_SIZE", c.log_acc_buff_size, c.acc_elem_bytes());
}

VtaConfig parse_vta_config(std::string_view json_text, std::string_view source) {
  const json j = parse_json_limited(json_text, std::string(source));
  if (!j.is_object()) throw Error(std::string(source) + ": expected a JSON object");
  VtaConfig c;
  bool seen[std::size(kShape)] = {};
  for (const auto& [key, value] : j.items()) {
    if (key == "name") {
      if (!value.is_string()) fail(source, key, "expected a string, got " + value.dump());
      c.name = value.get<std::string>();
    } else if (key == "TARGET" || key == "HW_VER") {
      // VTA's own keys, informational here.
    } else if (key == "timing") {
      parse_timing(value, source, c.timing);
    } else if (key == "LOG_BLOCK") {
      // VTA's newer files give one LOG_BLOCK for both sides; older ones give the two.
      if (j.contains("LOG_BLOCK_IN") || j.contains("LOG_BLOCK_OUT"))
        fail(source, key, "give either LOG_BLOCK or LOG_BLOCK_IN and LOG_BLOCK_OUT, not both");
      const std::int64_t v = read_int(value, source, key);
      check_range(source, key, v, 0, 6);
      c.log_block_in = c.log_block_out = int(v);
      seen[shape_index("LOG_BLOCK_IN")] = seen[shape_index("LOG_BLOCK_OUT")] = true;
    } else {
      const std::size_t i = shape_index(key);
      if (i == std::size(kShape)) fail(source, key, "unknown field");
      const std::int64_t v = read_int(value, source, key);
      check_range(source, key, v, kShape[i].lo, kShape[i].hi);
      c.*(kShape[i].member) = int(v);
      seen[i] = true;
    }
  }
  for (std::size_t i = 0; i < std::size(kShape); ++i)
    if (!seen[i]) fail(source, kShape[i].key, "missing");
  validate_vta_config(c, source);
  return c;
}

VtaConfig load_vta_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open VTA config file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_vta_config(text.str(), path);
}

std::string vta_target_path(std::string_view name) {
  // The first target directory that has it; else the last one's, for the error to name.
  const std::vector<std::string> dirs = target_dirs();
  for (const auto& dir : dirs) {
    std::string p = dir + "/vta/" + std::string(name) + ".json";
    std::error_code ec;  // a name too long for the file system is not found, not an exception
    if (std::filesystem::is_regular_file(p, ec)) return p;
  }
  return dirs.back() + "/vta/" + std::string(name) + ".json";
}

}  // namespace attune
