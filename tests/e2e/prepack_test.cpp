// Pre-packing (codegen/artifact.hpp): a kernel that packs a const input at its root exports
// pack/prepacked entry points; packing once and calling prepacked gives the reference's output
// without reading the weight again, the whole kernel still does too, and the worker times and
// checks the prepacked entry. Kernels whose packs depend on anything else export none.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "codegen/codegen_cpu.hpp"
#include "ir/buffer.hpp"
#include "ir/evaluator.hpp"
#include "runtime/loaded_kernel.hpp"
#include "runtime/runtime.hpp"
#include "schedule/transform.hpp"
#include "search/tuner.hpp"

namespace attune {
namespace {

Builder& builder() {
  static Builder b;
  return b;
}

// C[m, n] += A[m, k] * B[k, n], B const (a weight) unless `weight_const` is false.
Op matmul(std::int64_t M, std::int64_t N, std::int64_t K, bool weight_const = true) {
  const auto d = [](std::int64_t v) { return std::to_string(v); };
  return parse_spec("tensor A[" + d(M) + "," + d(K) + "] f32; tensor B[" + d(K) + "," + d(N) + "] f32" +
                    (weight_const ? " const" : "") + "; tensor C[" + d(M) + "," + d(N) +
                    "] f32; C[m,n] += A[m,k] * B[k,n]");
}

Artifact lowered(const Op& op, const std::vector<Transform>& steps) {
  LoopNest n = initial_nest(op);
  for (const auto& t : steps) n = apply(n, t);
  CpuCodegenOptions o;
  o.vector_bits = 256;
  return lower_cpu(n, o);
}

LoadedKernel loaded(const Artifact& a) {
  const BuildResult b = builder().build(a);
  EXPECT_TRUE(b.ok) << b.error;
  return LoadedKernel(b.so_path, a.entry);
}

std::vector<void*> pointers(std::vector<Buffer>& buffers) {
  std::vector<void*> p;
  for (auto& b : buffers) p.push_back(b.data());
  return p;
}

// A weight packed at the root in a random layout of a random tiling: pack once, then the
// prepacked entry computes the reference's output, also after the weight itself is zeroed
// (it reads only the packed copy), and so does the whole kernel on the original weight.
TEST(Prepack, PackedOnceTheKernelMatchesTheReference) {
  std::mt19937 rng(7);
  for (int round = 0; round < 4; ++round) {
    const std::int64_t M = 3 + rng() % 9, N = 8 * (1 + rng() % 4), K = 5 + rng() % 20;
    const Op op = matmul(M, N, K);
    std::vector<Transform> steps = {Transform::split("n", {N / 8, 8}), Transform::reorder({"m", "n.0", "k", "n.1"})};
    std::vector<std::string> layout = {"n.0", "k", "n.1"};
    if (round % 2) layout = {"k", "n.0", "n.1"};
    steps.push_back(Transform::pack("B", "root", layout));
    steps.push_back(Transform::vectorize("n.1"));
    if (round >= 2) steps.push_back(Transform::parallel("m"));
    const LoadedKernel k = loaded(lowered(op, steps));
    const Prepack& p = k.prepack();
    ASSERT_TRUE(p) << "round " << round;
    ASSERT_EQ(p.bytes.size(), 1u);
    EXPECT_EQ(p.bytes[0], static_cast<std::size_t>((N * K * 4 + 63) / 64 * 64));

    std::vector<Buffer> buffers = make_buffers(op, 100 + round);
    std::vector<Buffer> want = buffers;
    evaluate(op, want);
    const std::vector<void*> args = pointers(buffers);
    Buffer packed(DType::u8, {static_cast<std::int64_t>(p.bytes[0])});
    void* packed_args[] = {packed.data()};
    p.pack(args.data(), packed_args);

    k(args.data());  // the whole kernel
    EXPECT_TRUE(compare(buffers[2], want[2], 1e-5).ok) << "whole kernel, round " << round;
    buffers[2].fill_zero();
    buffers[1].fill_zero();  // the weight: prepacked must not read it
    p.prepacked(args.data(), packed_args);
    EXPECT_TRUE(compare(buffers[2], want[2], 1e-5).ok) << "prepacked, round " << round << ": "
                                                       << compare(buffers[2], want[2], 1e-5).str();
  }
}

// Nothing to pre-pack: a pack of an input that is not const, and a pack of a weight below a
// loop (one panel per iteration, refilled each time).
TEST(Prepack, OnlyRootPacksOfConstInputsArePrepacked) {
  const std::vector<Transform> at_root = {Transform::pack("B", "root")};
  EXPECT_FALSE(loaded(lowered(matmul(4, 16, 8, false), at_root)).prepack());
  EXPECT_TRUE(loaded(lowered(matmul(4, 16, 8, true), at_root)).prepack());
  const std::vector<Transform> below_m = {Transform::reorder({"n", "m", "k"}), Transform::pack("B", "n")};
  EXPECT_FALSE(loaded(lowered(matmul(4, 16, 8, true), below_m)).prepack());
}

// libgen and libgen --model put many kernels in one library under their own names: the
// pre-packing functions follow the entry's new name.
TEST(Prepack, RenamedEntryKeepsItsPrepackFunctions) {
  const Op op = matmul(5, 16, 7);
  Artifact a = lowered(op, {Transform::pack("B", "root")});
  a.source = source_with_entry(a, "net_task3");
  a.entry = "net_task3";
  EXPECT_EQ(a.source.find("attune_kernel"), std::string::npos);
  const LoadedKernel k = loaded(a);
  ASSERT_TRUE(k.prepack());
  std::vector<Buffer> buffers = make_buffers(op, 5);
  std::vector<Buffer> want = buffers;
  evaluate(op, want);
  const std::vector<void*> args = pointers(buffers);
  Buffer packed(DType::u8, {static_cast<std::int64_t>(k.prepack().bytes[0])});
  void* packed_args[] = {packed.data()};
  k.prepack().pack(args.data(), packed_args);
  k.prepack().prepacked(args.data(), packed_args);
  EXPECT_TRUE(compare(buffers[2], want[2], 1e-5).ok);
}

// The worker checks the prepacked entry against the reference and times it (a network task:
// weights evicted, caches scrubbed), at one thread and two; the recheck after timing passes.
TEST(Prepack, WorkerMeasuresThePrepackedEntry) {
  const Op op = matmul(12, 32, 40);
  const Artifact a = lowered(op, {Transform::split("n", {4, 8}), Transform::reorder({"m", "n.0", "k", "n.1"}),
                                  Transform::pack("B", "root", {"n.0", "k", "n.1"}), Transform::vectorize("n.1")});
  const BuildResult b = builder().build(a);
  ASSERT_TRUE(b.ok) << b.error;
  for (int threads : {1, 2}) {
    MeasureOptions o = MeasureOptions::correctness_only(2);
    o.threads = threads;
    o.recheck = true;
    const auto m = measure_batch(op, {b}, o);
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m[0].status, Status::ok) << m[0].error;
    EXPECT_FALSE(m[0].times_s.empty());
  }
}

}  // namespace
}  // namespace attune
