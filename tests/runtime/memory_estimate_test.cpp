// memory_estimate_test.cpp — the up-front memory estimate and limit of verify/tune
// (runtime/memory_estimate.hpp).
#include <gtest/gtest.h>

#include <unistd.h>

#include "ir/error.hpp"
#include "runtime/memory_estimate.hpp"

namespace attune {
namespace {

std::string error_of(const Op& op, std::uint64_t limit) {
  try {
    check_memory_limit(op, limit);
  } catch (const Error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(MemoryEstimate, CountsEveryCopy) {
  // A, B: 2 x 4 KiB inputs; C: 4 KiB output.
  const Op op = op_from_cli("gemm:M=32,N=32,K=32");
  EXPECT_EQ(measurement_memory_bytes(op), 3u * 8192 + 5u * 4096);
}

TEST(MemoryEstimate, AHugeGemmIsRefusedAtOnce) {
  const Op op = op_from_cli("gemm:M=20000,N=20000,K=20000");
  // 3 x 3.2 GB of inputs + 5 x 1.6 GB of output.
  EXPECT_EQ(measurement_memory_bytes(op), 3u * 2 * 1600000000ull + 5u * 1600000000ull);
  EXPECT_EQ(error_of(op, std::uint64_t{8} << 30),
            "op 'gemm' needs about 16.4 GiB of memory to measure (its tensors and the copies attune makes of them), "
            "more than the limit of 8.0 GiB; raise it with --max-memory SIZE (Budget::max_memory in the C++ API; "
            "default: half of physical memory)");
  EXPECT_EQ(error_of(op, std::uint64_t{20} << 30), "(accepted)");
}

TEST(MemoryEstimate, DefaultIsHalfOfPhysicalMemory) {
  const auto physical =
      static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  EXPECT_EQ(default_memory_limit(), physical / 2);
}

TEST(MemoryEstimate, ByteSizes) {
  EXPECT_EQ(parse_byte_size("1000000", "x"), 1000000u);
  EXPECT_EQ(parse_byte_size("64k", "x"), 65536u);
  EXPECT_EQ(parse_byte_size("512M", "x"), 512u << 20);
  EXPECT_EQ(parse_byte_size("4G", "x"), std::uint64_t{4} << 30);
  EXPECT_EQ(parse_byte_size("4GiB", "x"), std::uint64_t{4} << 30);
  EXPECT_EQ(parse_byte_size("1.5G", "x"), std::uint64_t{3} << 29);
  EXPECT_EQ(parse_byte_size("2T", "x"), std::uint64_t{2} << 40);
  for (const char* bad : {"", "G", "-1G", "4X", "0", "1e3", "99999999999999999999T"}) {
    SCOPED_TRACE(bad);
    try {
      parse_byte_size(bad, "--max-memory");
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("--max-memory: expected a size in bytes such as 4G, 512M or 1000000, got '") + bad + "'");
    }
  }
  EXPECT_EQ(format_bytes(100), "100 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
}

}  // namespace
}  // namespace attune
