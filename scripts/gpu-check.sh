#!/usr/bin/env bash
# gpu-check.sh [BUNDLE_DIR] — build and run the CUDA kernels attune generates, check each against
# its reference loop (a multi-stage op: against the reference evaluator's output stored in the
# bundle), time it against cuBLAS (GEMM) and cuDNN (conv2d, when its header is found), and print
# one table. BUNDLE_DIR is a folder written by `attune gpu-bundle DIR` (possibly on
# another machine: then this needs no attune build here); without it, the built attune
# (build/attune beside this script, or $ATTUNE) writes the default bundle into a temporary folder.
# Needs an NVIDIA GPU (sm_90 by default; ARCH=sm_80 to change) and the CUDA toolkit, no network.
# Exits non-zero when a kernel fails.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
arch=${ARCH:-sm_90}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ $# -ge 1 ]; then
  bundle=$1
else
  attune=${ATTUNE:-$here/../build/attune}
  [ -x "$attune" ] || { echo "gpu-check: no bundle given and attune is not built at '$attune' (run make build, set ATTUNE=PATH, or pass a folder written by: attune gpu-bundle DIR)" >&2; exit 2; }
  bundle=$work/bundle
  "$attune" gpu-bundle "$bundle" >/dev/null
fi
[ -d "$bundle" ] || { echo "gpu-check: no bundle folder '$bundle' (write one with: attune gpu-bundle DIR)" >&2; exit 2; }
ls "$bundle"/*_check.cu >/dev/null 2>&1 || { echo "gpu-check: '$bundle' holds no *_check.cu harness" >&2; exit 2; }

nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; }
[ -n "$nvcc" ] || { echo "gpu-check: nvcc not found on PATH or in /usr/local/cuda/bin" >&2; exit 2; }

cudnn_flags=""
for inc in ${CUDNN_HOME:+$CUDNN_HOME/include} /usr/include /usr/local/cuda/include /usr/include/x86_64-linux-gnu; do
  if [ -f "$inc/cudnn.h" ]; then cudnn_flags="-DATTUNE_HAVE_CUDNN -I$inc -lcudnn"; break; fi
done

echo "gpu-check: $(ls "$bundle"/*_check.cu | wc -l) kernels from $bundle; nvcc $("$nvcc" --version | tail -1);" \
     "cuDNN: $([ -n "$cudnn_flags" ] && echo yes || echo 'no (header not found)')"

# Compile every harness in parallel (nvcc is slow); each log is kept for the report.
export nvcc arch cudnn_flags work bundle
ls "$bundle"/*_check.cu | xargs -P "$(nproc)" -I{} bash -c '
  f={}; id=$(basename "$f" _check.cu)
  "$nvcc" -O3 -arch=$arch -std=c++17 -I"$bundle" "$f" -o "$work/$id" -lcublas $cudnn_flags >"$work/$id.build.log" 2>&1 \
    || echo "compile failed" >"$work/$id.failed"'

printf '%-22s %-22s %4s %10s %10s %8s %8s %10s %-6s\n' shape intrinsic map attune_TF/s vendor vendor_TF/s ratio max_err status
fails=0
for f in "$bundle"/*_check.cu; do
  id=$(basename "$f" _check.cu)
  if [ -e "$work/$id.failed" ]; then
    printf '%-22s %-22s %4s %10s %10s %8s %8s %10s %-6s\n' "$id" - - - - - - - COMPILE_FAIL
    sed -n 1,20p "$work/$id.build.log" >&2
    fails=$((fails + 1)); continue
  fi
  # The bundle folder is the harness's argument: a multi-stage op's harness reads its inputs and
  # the reference evaluator's output from <id>.data there (the others ignore it).
  line=$(timeout 300 "$work/$id" "$bundle" 2>"$work/$id.run.log" | grep '^RESULT|' || true)
  if [ -z "$line" ]; then
    printf '%-22s %-22s %4s %10s %10s %8s %8s %10s %-6s\n' "$id" - - - - - - - RUN_FAIL
    sed -n 1,20p "$work/$id.run.log" >&2
    fails=$((fails + 1)); continue
  fi
  IFS='|' read -r _ name intr map ms tf vendor vms vtf err status <<<"$line"
  ratio=-
  if [ "$vendor" != "-" ]; then ratio=$(awk -v a="$tf" -v b="$vtf" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'); fi
  printf '%-22s %-22s %4s %10s %10s %8s %8s %10s %-6s\n' "$name" "$intr" "$map" "$tf" "$vendor" "$vtf" "$ratio" "$err" "$status"
  [ "$status" = OK ] || fails=$((fails + 1))
done
echo "(TF/s: 2*MACs per second / 1e12 (TOP/s for int8; a multi-stage op counts 2 per point of each stage's domain); ratio: attune / vendor; max_err: relative to the largest reference value, on 4096 sampled outputs (multi-stage ops, intrinsic cuda-stages, map = stages: on every output))"
[ "$fails" = 0 ] || { echo "gpu-check: $fails kernel(s) failed" >&2; exit 1; }
