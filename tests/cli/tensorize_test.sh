#!/usr/bin/env bash
# `attune lower` with a CUDA target or --intrinsic/--mapping prints tensorized code;
# `attune gpu-bundle` writes kernels with their harnesses. Bad requests fail with one line.
set -euo pipefail
attune=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# CUDA source for the H200 (default intrinsic and mapping), and each Tensor Core spelling.
out=$("$attune" lower gemm:M=64,N=64,K=64,dtype=f16 --target nvidia-h200)
grep -q '__global__' <<<"$out"
grep -q '"kind":"tensorize"' <<<"$out"
out=$("$attune" lower gemm:M=64,N=64,K=64,dtype=f16 --target cuda --intrinsic mma_m16n8k16_f16f32 --c-only)
grep -q 'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32' <<<"$out"
if grep -q -- '---- generated' <<<"$out"; then echo "--c-only printed a header"; exit 1; fi
out=$("$attune" lower conv2d:N=1,H=8,W=8,C=16,K=16,R=3,S=3,pad=1,layout=NCHW,dtype=f16 --target cuda \
      --intrinsic wmma_32x8x16_f16f32)
grep -q 'nvcuda::wmma::mma_sync' <<<"$out"
grep -q '__shared__' <<<"$out"

# A multi-stage op on a CUDA target: not tensorized, one kernel per stage.
out=$("$attune" lower softmax:M=4,N=8 --target nvidia-h200)
[ "$(grep -c '__global__' <<<"$out")" = 3 ]
grep -q -- '---- generated CUDA, one kernel per stage' <<<"$out"
grep -q 'extern "C" cudaError_t attune_softmax_stages_launch(' <<<"$out"
out=$("$attune" lower maxpool2d:N=1,C=2,H=7,W=7,R=3,S=3,stride=2,pad=1 --target cuda --c-only)
grep -q 'acc_ = fmaxf(acc_' <<<"$out"
if grep -q -- '---- generated' <<<"$out"; then echo "--c-only printed a header"; exit 1; fi

# Tensorized C for the host's AVX2 intrinsic, mapping number 1.
out=$("$attune" lower gemm:M=8,N=16,K=4 --target x86-avx2 --intrinsic avx2_fma_f32 --mapping 1 --c-only)
grep -q '_mm256_fmadd_ps' <<<"$out"
grep -q 'void attune_kernel' <<<"$out"

# Errors: one line, naming the problem.
expect_error() {  # expected-substring, command...
  local want=$1; shift
  if "$@" >"$tmp/out" 2>"$tmp/err"; then echo "no error from: $*"; exit 1; fi
  [ "$(grep -c '' "$tmp/err")" = 1 ] || { echo "error is not one line:"; cat "$tmp/err"; exit 1; }
  grep -qF -- "$want" "$tmp/err" || { echo "expected '$want' in:"; cat "$tmp/err"; exit 1; }
}
expect_error '--mapping 99: avx2_fma_f32 has' \
  "$attune" lower gemm:M=8,N=16,K=4 --target x86-avx2 --intrinsic avx2_fma_f32 --mapping 99
expect_error "target x86-avx2 has no intrinsic 'wmma_16x16x16_f16f32'" \
  "$attune" lower gemm:M=8,N=16,K=4 --target x86-avx2 --intrinsic wmma_16x16x16_f16f32
expect_error 'no valid mapping' \
  "$attune" lower gemm:M=8,N=16,K=4 --target nvidia-h200 --intrinsic wmma_16x16x16_f16f32
expect_error 'a multi-stage op has no mappings' \
  "$attune" lower softmax:M=4,N=8 --target nvidia-h200 --intrinsic wmma_16x16x16_f16f32

# A bundle for one GEMM: a kernel, its harness and the manifest.
"$attune" gpu-bundle "$tmp/b" gemm:M=64,N=64,K=64,dtype=f16 --intrinsic wmma_16x16x16_f16f32 >/dev/null
[ "$(ls "$tmp"/b/*_check.cu | wc -l)" = 1 ]
grep -q 'reference_at' "$tmp"/b/*_check.cu
grep -q 'cublasGemmEx' "$tmp"/b/*_check.cu
grep -q 'wmma_16x16x16_f16f32' "$tmp/b/kernels.txt"
# The default bundle, which scripts/gpu-check.sh generates when given none: every kernel with
# its harness, one manifest line each.
"$attune" gpu-bundle "$tmp/d" >/dev/null
n=$(ls "$tmp"/d/*_check.cu | wc -l)
[ "$n" -ge 8 ] || { echo "default bundle has only $n harnesses"; exit 1; }
[ "$(ls "$tmp"/d/*.cu | wc -l)" = $((2 * n)) ]
[ "$(grep -vc '^#' "$tmp/d/kernels.txt")" = "$n" ]
# ... among them the multi-stage ops, each with the reference evaluator's output beside it.
[ "$(grep -c '| cuda-stages |' "$tmp/d/kernels.txt")" = 4 ]
[ "$(ls "$tmp"/d/*.data | wc -l)" = 4 ]
"$attune" gpu-bundle "$tmp/s" layernorm:M=4,N=8 >/dev/null
[ -s "$tmp"/s/attune_layernorm_stages.data ] && grep -q 'cuda-stages' "$tmp"/s/attune_layernorm_stages_check.cu
echo "ok"
