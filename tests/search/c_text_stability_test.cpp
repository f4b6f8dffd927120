// The C generated for a schedule is part of every record: its sha256 is `features.source_sha256`,
// and rebuild_recorded() refuses to hand out a kernel whose regenerated C differs from what was
// measured. So a change to the code generator that alters the text of kernels already in users'
// databases makes them unrebuildable. This test holds the sha256 of the C of a fixed set of
// schedules (tests/search/fixtures/c_text.tsv: spec, vector bits, trace, hash): random legal
// traces of every family and configs of the CPU space (register tiles, tails, packing, stepped
// taps), at AVX2 and AVX-512 widths. A refactoring of codegen must leave them all unchanged; a
// deliberate change of the generated code regenerates the file with ATTUNE_UPDATE_C_TEXT=1 and
// says in its commit why old records may no longer rebuild.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "codegen/codegen_cpu.hpp"
#include "ir/error.hpp"
#include "ir/hash.hpp"
#include "schedule/actions.hpp"
#include "search/tuner.hpp"

namespace attune {
namespace {

const std::string kFixture = std::string(ATTUNE_SOURCE_DIR) + "/tests/search/fixtures/c_text.tsv";

const char* const kSpecs[] = {
    "gemm:M=19,N=24,K=13",
    "gemm:M=64,N=48,K=32,epilogue=bias_relu",
    "gemm:M=100,N=70,K=33",
    "batch_matmul:B=2,M=5,N=8,K=7",
    "conv1d:N=1,L=14,C=4,K=8,R=3,stride=2,pad=1",
    "conv2d:N=1,H=7,W=6,C=3,K=8,R=3,S=3,stride=2,pad=1,layout=NCHW",
    "conv2d:N=1,H=14,W=14,C=16,K=32,R=3,S=3,stride=1,pad=1,layout=NHWC",
    "conv2d:N=1,H=6,W=6,C=8,K=8,R=3,S=3,stride=1,pad=1,groups=2,layout=NHWC",
    "depthwise_conv2d:N=1,H=7,W=7,C=8,R=3,S=3,stride=2,pad=1,layout=NHWC",
    "conv3d:N=1,D=4,H=5,W=5,C=3,K=8,T=3,R=3,S=3,stride=1,pad=1,layout=NDHWC",
    "conv2d_transpose:N=1,H=3,W=3,C=4,K=8,R=4,S=4,stride=2,pad=1,layout=NHWC",
    "conv2d_transpose:N=1,H=8,W=8,C=16,K=16,R=4,S=4,stride=2,pad=1,layout=NHWC",
    "conv2d_capsule:N=1,H=5,W=5,C=2,K=4,R=3,S=3,stride=2,pad=1,capsule=2",
};

CpuCodegenOptions options(int bits, const std::string& trace) {
  CpuCodegenOptions o;
  o.vector_bits = bits;
  o.vector_registers = bits == 512 ? 32 : 16;
  o.trace_json = trace;
  return o;
}

std::string c_hash(const std::string& spec, int bits, const std::string& trace) {
  const Op op = op_from_cli(spec);
  return content_hash(lower_cpu(replay(op, trace_from_string(trace)), options(bits, trace)).source);
}

// The schedules the fixture holds (only run to regenerate it).
void write_fixture() {
  std::ofstream out(kFixture);
  std::mt19937_64 rng(20261202);
  for (const char* spec : kSpecs) {
    const Op op = op_from_cli(spec);
    std::vector<std::string> traces;
    for (int i = 0; i < 10; ++i) traces.push_back(trace_to_string(random_trace(op, rng, 10)));
    for (int threads : {1, 2}) {
      const auto space = make_cpu_space(op, threads, {8, 16});
      for (const auto& c : space->seed_configs()) traces.push_back(space->trace_json(c));
      for (int i = 0; i < 8; ++i) traces.push_back(space->trace_json(space->random_config(rng)));
    }
    for (const auto& t : traces) {
      for (int bits : {256, 512}) {
        try {
          const std::string h = c_hash(spec, bits, t);
          out << spec << '\t' << bits << '\t' << t << '\t' << h << '\n';
        } catch (const Error&) {
          // A config the space would refuse (not admissible): not a kernel anyone recorded.
        }
      }
    }
  }
}

TEST(CText, RegeneratedKernelsAreByteIdenticalToTheFixture) {
  if (std::getenv("ATTUNE_UPDATE_C_TEXT")) write_fixture();
  std::ifstream in(kFixture);
  ASSERT_TRUE(in) << "missing " << kFixture;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string spec, bits, trace, hash;
    std::getline(fields, spec, '\t');
    std::getline(fields, bits, '\t');
    std::getline(fields, trace, '\t');
    std::getline(fields, hash, '\t');
    EXPECT_EQ(c_hash(spec, std::stoi(bits), trace), hash) << spec << " at " << bits << " bits: " << trace;
    ++n;
  }
  EXPECT_GT(n, 400);
}

}  // namespace
}  // namespace attune
