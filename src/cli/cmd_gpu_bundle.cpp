// cmd_gpu_bundle.cpp — `attune gpu-bundle DIR [SPEC...] [--target T]`: writes the CUDA kernels
// attune generates, each with a self-contained checking and timing harness, for
// scripts/gpu-check.sh to build and run on a machine with the GPU (codegen/gpu_bundle.hpp).
// Contractions are tensorized; multi-stage ops get one kernel per stage and are checked against
// the reference evaluator's output, stored in the bundle.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/cli_common.hpp"
#include "codegen/gpu_bundle.hpp"
#include "ir/error.hpp"
#include "schedule/tensorize.hpp"

namespace attune::cli {

namespace {

// A few GEMM and conv2d shapes (ResNet-50 layers, BERT) in f16 and int8, each on one intrinsic so
// that every Tensor Core intrinsic appears and the bundle stays quick to compile.
struct Default {
  const char* spec;
  const char* intrinsic;
};
const Default kDefaults[] = {
    {"gemm_4096_f16 gemm M=4096 N=4096 K=4096 dtype=f16", "mma_m16n8k16_f16f32"},
    {"gemm_4096_f16 gemm M=4096 N=4096 K=4096 dtype=f16", "wmma_16x16x16_f16f32"},
    {"gemm_4096_f16 gemm M=4096 N=4096 K=4096 dtype=f16", "wmma_32x8x16_f16f32"},
    {"gemm_4096_f16 gemm M=4096 N=4096 K=4096 dtype=f16", "wmma_8x32x16_f16f32"},
    {"gemm_1000_f16 gemm M=1000 N=1000 K=1000 dtype=f16", "mma_m16n8k16_f16f32"},
    {"bert_ffn1_f16 gemm M=128 N=3072 K=768 dtype=f16", "wmma_16x16x16_f16f32"},
    {"gemm_2048_i8 gemm M=2048 N=2048 K=2048 dtype=int8", "wmma_16x16x16_s8s32"},
    {"rn50_c2_3x3_f16 conv2d N=1 H=56 W=56 C=64 K=64 R=3 S=3 stride=1 pad=1 layout=NCHW dtype=f16",
     "mma_m16n8k16_f16f32"},
    {"rn50_c3_3x3_b8_f16 conv2d N=8 H=28 W=28 C=128 K=128 R=3 S=3 stride=1 pad=1 layout=NHWC dtype=f16",
     "wmma_16x16x16_f16f32"},
    {"rn50_c4_s2_b8_f16 conv2d N=8 H=28 W=28 C=256 K=256 R=3 S=3 stride=2 pad=1 layout=NHWC dtype=f16",
     "wmma_32x8x16_f16f32"},
    {"rn50_c2_1x1_b8_i8 conv2d N=8 H=56 W=56 C=64 K=256 R=1 S=1 stride=1 pad=0 layout=NHWC dtype=int8",
     "wmma_16x16x16_s8s32"},
};

// Multi-stage ops at small shapes (their harnesses carry the reference evaluator's output):
// softmax, layernorm, max pooling with padding (skipped points) and attention (six stages).
const char* const kStageDefaults[] = {
    "softmax_2x33x1000 softmax B=2 M=33 N=1000",
    "layernorm_64x768 layernorm M=64 N=768",
    "maxpool_3x3_s2_p1 maxpool2d N=2 C=16 H=17 W=17 R=3 S=3 stride=2 pad=1",
    "attention_4x64x64 attention H=4 T=64 D=64",
};

struct BundleArgs {
  std::string dir;
  std::vector<std::string> specs;
  std::string target = "nvidia-h200";
  std::string intrinsic;  // SPECs given: only this intrinsic (default: every one that maps)
};

int run_bundle(const BundleArgs& a) {
  const Target target = load_target_arg(a.target);
  if (target.kind != TargetKind::cuda) throw Error("gpu-bundle: target " + target.name + " is not a cuda target");
  std::vector<TensorizePlan> plans;
  std::vector<Op> stage_ops;  // not tensorized: one kernel per stage
  if (a.specs.empty()) {
    for (const auto& d : kDefaults)
      plans.push_back(plan_tensorize(op_from_cli(d.spec), target.intrinsic(d.intrinsic), 0));
    for (const char* spec : kStageDefaults) stage_ops.push_back(op_from_cli(spec));
  }
  for (const auto& spec : a.specs) {
    const Op op = op_from_cli(spec);
    if (op.multi_stage()) {
      if (!a.intrinsic.empty())
        throw Error("gpu-bundle: --intrinsic tensorizes a contraction; " + spec + " is multi-stage");
      stage_ops.push_back(op);
      continue;
    }
    if (!a.intrinsic.empty()) {
      plans.push_back(plan_tensorize(op, target.intrinsic(a.intrinsic), 0));
      continue;
    }
    int n = 0;
    for (const auto& in : target.intrinsics) {
      if (!tensorize_supported_kind(in.emit_kind)) continue;
      try {
        plans.push_back(plan_tensorize(op, in, 0));  // the default mapping; dtypes pick the intrinsics
        ++n;
      } catch (const Error&) {
      }
    }
    if (n == 0) throw Error("gpu-bundle: no intrinsic of " + target.name + " maps " + spec);
  }
  const auto ids = write_gpu_bundle(a.dir, plans, stage_ops);
  std::cout << "wrote " << ids.size() << " kernels and harnesses to " << a.dir << " (run scripts/gpu-check.sh " << a.dir
            << " on the GPU machine)\n";
  return 0;
}

}  // namespace

void add_gpu_bundle_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<BundleArgs>();
  auto* sub = app.add_subcommand("gpu-bundle", "Write CUDA kernels with checking harnesses for scripts/gpu-check.sh");
  sub->add_option("DIR", args->dir, "folder to write (created)")->required();
  sub->add_option("SPEC", args->specs,
                  "ops (default: a few GEMM and conv2d shapes in f16 and int8, and softmax, layernorm, maxpool2d and "
                  "attention at small shapes)");
  sub->add_option("--target", args->target, "cuda target (default nvidia-h200)");
  sub->add_option("--intrinsic", args->intrinsic, "with SPECs: only this intrinsic");
  sub->callback([&action, args] { action = [args] { return run_bundle(*args); }; });
}

}  // namespace attune::cli
